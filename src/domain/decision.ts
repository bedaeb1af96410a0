/**
 * The credit decision (CONTRACT 6): deterministic, configured by amount limits per financing type and
 * currency. Pure: no HTTP, no SQL.
 */
import { totalProblems } from "./money";
import { ok, type Result, refused } from "./result";

export type DecisionLimits = Record<string, Record<string, number>>;

export interface DecisionInput {
  type: string;
  totalAmount: number;
  currency: string;
  customerEmail: string;
  agreementTermsAndConditions: boolean;
}

export interface Decision {
  /** REVIEW: a manual review decides later, to `review`. */
  outcome: "APPROVED" | "REJECTED" | "REVIEW";
  review?: "APPROVE" | "REJECT";
  /** Every reason that applied, for audit (stable codes, e.g. "AMOUNT_OVER_LIMIT"). */
  reasons: string[];
}

/**
 * The sandbox scenarios chosen by the customer's e-mail (the local part before "@", case-insensitive,
 * ending in one of these), taken only where SANDBOX is on: elsewhere such an address is an ordinary
 * customer's, or a customer could lift the amount limit by choosing an e-mail address.
 */
const SCENARIOS = ["+review-reject", "+review", "+reject", "+approve"] as const;
type Scenario = (typeof SCENARIOS)[number];

function scenarioOf(email: string): Scenario | undefined {
  const at = email.lastIndexOf("@");
  const localPart = (at < 0 ? email : email.slice(0, at)).toLowerCase();
  return SCENARIOS.find((s) => localPart.endsWith(s));
}

/**
 * Rules, all evaluated so that `reasons` lists each that applied:
 * - (sandbox) "+reject" → REJECTED, reason SANDBOX_REJECT (wins over everything else);
 * - a missing agreement → REJECTED, AGREEMENT_MISSING;
 * - (sandbox) "+approve" → the amount limit is not applied, reason SANDBOX_APPROVE;
 * - otherwise no limit configured for the type and currency → REJECTED, NO_LIMIT_FOR_CURRENCY;
 *   totalAmount above the limit → REJECTED, AMOUNT_OVER_LIMIT; else reason WITHIN_LIMIT;
 * - (sandbox) "+review" / "+review-reject", when nothing rejected: REVIEW, which settles later to an
 *   approval or a rejection (SANDBOX_REVIEW, SANDBOX_REVIEW_REJECT).
 * APPROVED when no rejecting reason applied.
 */
export function decide(input: DecisionInput, limits: DecisionLimits, sandbox: boolean): Decision {
  const scenario = sandbox ? scenarioOf(input.customerEmail) : undefined;
  const reasons: string[] = [];
  let rejected = false;
  const reject = (reason: string) => {
    reasons.push(reason);
    rejected = true;
  };

  if (scenario === "+reject") reject("SANDBOX_REJECT");
  if (!input.agreementTermsAndConditions) reject("AGREEMENT_MISSING");
  if (scenario === "+approve") reasons.push("SANDBOX_APPROVE");
  else {
    const limit = limitFor(limits, input.type, input.currency);
    if (limit === undefined) reject("NO_LIMIT_FOR_CURRENCY");
    else if (input.totalAmount > limit) reject("AMOUNT_OVER_LIMIT");
    else reasons.push("WITHIN_LIMIT");
  }
  if (rejected) return { outcome: "REJECTED", reasons };
  if (scenario === "+review") return { outcome: "REVIEW", review: "APPROVE", reasons: [...reasons, "SANDBOX_REVIEW"] };
  if (scenario === "+review-reject") {
    return { outcome: "REVIEW", review: "REJECT", reasons: [...reasons, "SANDBOX_REVIEW_REJECT"] };
  }
  return { outcome: "APPROVED", reasons };
}

/** The highest total the decision approves for the type and currency, if it finances them at all. */
export function limitFor(limits: DecisionLimits, type: string, currency: string): number | undefined {
  // Own keys only: a type or currency such as "constructor" must not find a limit on Object.prototype.
  const byCurrency = Object.hasOwn(limits, type) ? limits[type] : undefined;
  const limit = byCurrency !== undefined && Object.hasOwn(byCurrency, currency) ? byCurrency[currency] : undefined;
  return typeof limit === "number" && Number.isFinite(limit) ? limit : undefined;
}

export interface Eligibility {
  type: string;
  eligible: boolean;
  /** The highest total the type finances in the currency; absent when it finances none. */
  maxAmount?: number;
  /** Why not, when not eligible. */
  reasons?: string[];
}

/**
 * Eligibility before an application exists (precheck): what the decision would say of this total and
 * customer for each financing type, the agreement taken as given. Stores nothing, decides nothing.
 */
export function eligibility(
  request: { amount: number; currency: string; types: readonly string[]; customerEmail?: string | undefined },
  limits: DecisionLimits,
  sandbox: boolean,
): Result<Eligibility[]> {
  const invalid = totalProblems(request, "totalPrice");
  if (invalid.length > 0) return refused(...invalid);
  return ok(
    request.types.map((type) => {
      const decision = decide(
        {
          type,
          totalAmount: request.amount,
          currency: request.currency,
          customerEmail: request.customerEmail ?? "",
          agreementTermsAndConditions: true,
        },
        limits,
        sandbox,
      );
      const maxAmount = limitFor(limits, type, request.currency);
      const eligible = decision.outcome !== "REJECTED";
      return {
        type,
        eligible,
        ...(maxAmount === undefined ? {} : { maxAmount }),
        ...(eligible ? {} : { reasons: decision.reasons.filter((r) => r !== "WITHIN_LIMIT") }),
      };
    }),
  );
}
