/**
 * A partner's settlement terms (CONTRACT 6b) as their columns hold them. No Drizzle here: a write's
 * first read (the gateway's too) maps them without loading it.
 */
import type { PartnerTerms } from "../domain/partner-terms";
import type { PartnerRow } from "./schema";

/** The partner columns that hold the terms, as a relational query selects them. */
export const TERMS_COLUMNS = {
  settlesOn: true,
  feeBasisPointsDeferredPayment: true,
  feeBasisPointsPayInThree: true,
  feeVatRate: true,
} as const satisfies Partial<Record<keyof PartnerRow, true>>;

export type TermsRow = Pick<PartnerRow, keyof typeof TERMS_COLUMNS>;

export const termsOf = (row: TermsRow): PartnerTerms => ({
  settlesOn: row.settlesOn,
  feeBasisPoints: { DEFERRED_PAYMENT: row.feeBasisPointsDeferredPayment, PAY_IN_THREE: row.feeBasisPointsPayInThree },
  feeVatRate: row.feeVatRate,
});

export const termsRow = (terms: PartnerTerms): TermsRow => ({
  settlesOn: terms.settlesOn,
  feeBasisPointsDeferredPayment: terms.feeBasisPoints.DEFERRED_PAYMENT,
  feeBasisPointsPayInThree: terms.feeBasisPoints.PAY_IN_THREE,
  feeVatRate: terms.feeVatRate,
});
