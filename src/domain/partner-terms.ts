/**
 * A partner's agreement on settlement (CONTRACT 6b): when its sales become payable, and the fee per
 * financing type with VAT on it. An operator changes it; the partner reads it. Pure: no HTTP, no SQL.
 */
import { FINANCING_TYPES } from "./financing-terms";
import { ok, type Problem, problem, type Result, refused } from "./result";

export const SETTLES_ON = ["SENT", "DELIVERED"] as const;
/** SENT: goods are paid for once sent; DELIVERED: once delivered (or returned, which proves delivery). */
export type SettlesOn = (typeof SETTLES_ON)[number];

export type FinancingType = (typeof FINANCING_TYPES)[number];

export interface PartnerTerms {
  settlesOn: SettlesOn;
  /** The fee on each sale, per financing type, in basis points (1 bp = 0.01 %). */
  feeBasisPoints: Record<FinancingType, number>;
  /** The VAT on the fee, in whole percent. */
  feeVatRate: number;
}

export const DEFAULT_TERMS: PartnerTerms = {
  settlesOn: "SENT",
  feeBasisPoints: { DEFERRED_PAYMENT: 250, PAY_IN_THREE: 350 },
  feeVatRate: 21,
};

/** What an operator changes; what is left out stays. */
export interface TermsChange {
  settlesOn?: SettlesOn | undefined;
  feeBasisPoints?: Partial<Record<FinancingType, number>> | undefined;
  feeVatRate?: number | undefined;
}

const MAX_BASIS_POINTS = 10_000;

/**
 * The terms after an operator's change, or every problem with it. A fee is whole basis points from 0 to
 * 10 000 (all of the sale) and the VAT rate a whole percent from 0 to 100: whole numbers keep every fee
 * an exact integer computation (settlement-fees.ts); a fractional VAT rate would need its own unit.
 */
export function planTermsChange(current: PartnerTerms, change: TermsChange): Result<PartnerTerms> {
  const problems: Problem[] = [];
  if (change.settlesOn !== undefined && !SETTLES_ON.includes(change.settlesOn)) {
    problems.push(problem("INVALID_VALUE", `must be one of ${SETTLES_ON.join(", ")}`, "settlesOn"));
  }
  for (const type of FINANCING_TYPES) {
    const bp = change.feeBasisPoints?.[type];
    if (bp !== undefined && !wholeWithin(bp, MAX_BASIS_POINTS)) {
      problems.push(
        problem("INVALID_VALUE", `must be whole basis points from 0 to ${MAX_BASIS_POINTS}`, `feeBasisPoints.${type}`),
      );
    }
  }
  if (change.feeVatRate !== undefined && !wholeWithin(change.feeVatRate, 100)) {
    problems.push(problem("INVALID_VALUE", "must be a whole percent from 0 to 100", "feeVatRate"));
  }
  if (problems.length > 0) return refused(...problems);
  return ok({
    settlesOn: change.settlesOn ?? current.settlesOn,
    feeBasisPoints: Object.fromEntries(
      FINANCING_TYPES.map((type) => [type, change.feeBasisPoints?.[type] ?? current.feeBasisPoints[type]]),
    ) as Record<FinancingType, number>,
    feeVatRate: change.feeVatRate ?? current.feeVatRate,
  });
}

const wholeWithin = (value: number, max: number) => Number.isInteger(value) && value >= 0 && value <= max;
