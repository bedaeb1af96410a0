/**
 * The credit decision (CONTRACT 6): deterministic, configured by amount limits per financing type and
 * currency. Pure: no HTTP, no SQL.
 */

export type DecisionLimits = Record<string, Record<string, number>>;

export interface DecisionInput {
  type: string;
  totalAmount: number;
  currency: string;
  customerEmail: string;
  agreementTermsAndConditions: boolean;
}

export interface Decision {
  outcome: "APPROVED" | "REJECTED";
  /** Every reason that applied, for audit (stable codes, e.g. "AMOUNT_OVER_LIMIT"). */
  reasons: string[];
}

/**
 * Rules, all evaluated so that `reasons` lists each that applied:
 * - the e-mail's local part (before "@", case-insensitive) ending in "+reject" → REJECTED, reason
 *   SANDBOX_REJECT (wins over everything else);
 * - a missing agreement → REJECTED, AGREEMENT_MISSING;
 * - local part ending in "+approve" → the amount limit is not applied, reason SANDBOX_APPROVE;
 * - otherwise no limit configured for the type and currency → REJECTED, NO_LIMIT_FOR_CURRENCY;
 *   totalAmount above the limit → REJECTED, AMOUNT_OVER_LIMIT; else reason WITHIN_LIMIT.
 * APPROVED when no rejecting reason applied.
 */
export function decide(input: DecisionInput, limits: DecisionLimits): Decision {
  const at = input.customerEmail.lastIndexOf("@");
  const localPart = (at < 0 ? input.customerEmail : input.customerEmail.slice(0, at)).toLowerCase();
  const reasons: string[] = [];
  let rejected = false;
  const reject = (reason: string) => {
    reasons.push(reason);
    rejected = true;
  };

  if (localPart.endsWith("+reject")) reject("SANDBOX_REJECT");
  if (!input.agreementTermsAndConditions) reject("AGREEMENT_MISSING");
  if (localPart.endsWith("+approve")) {
    reasons.push("SANDBOX_APPROVE");
  } else {
    const limit = limitFor(limits, input.type, input.currency);
    if (limit === undefined) reject("NO_LIMIT_FOR_CURRENCY");
    else if (input.totalAmount > limit) reject("AMOUNT_OVER_LIMIT");
    else reasons.push("WITHIN_LIMIT");
  }
  return { outcome: rejected ? "REJECTED" : "APPROVED", reasons };
}

// Own keys only: a type or currency such as "constructor" must not find a limit on Object.prototype.
function limitFor(limits: DecisionLimits, type: string, currency: string): number | undefined {
  const byCurrency = Object.hasOwn(limits, type) ? limits[type] : undefined;
  const limit = byCurrency !== undefined && Object.hasOwn(byCurrency, currency) ? byCurrency[currency] : undefined;
  return typeof limit === "number" && Number.isFinite(limit) ? limit : undefined;
}
