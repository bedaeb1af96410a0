/**
 * The money of an application: the approved amount, the financed total, the refunded total. Every
 * operation that moves money asks `move`, so the invariants are stated and enforced here once:
 *
 *   0 ≤ refunded ≤ financed ≤ approved      (approved: once the application is approved)
 *   the financed total only falls, except by an order change (which may not rise above approved);
 *   the refunded total only rises.
 *
 * The financed total is the sum of the order lines that are not cancelled (DISCOUNT lines included);
 * the refundable amount is what of it has not been refunded. Pure: no HTTP, no SQL.
 */
import { financedAmount, type Line } from "./order-lines";
import { ok, problem, type Result, refused } from "./result";

export interface Ledger {
  /** The financed total at approval; null before. */
  approved: number | null;
  financed: number;
  refunded: number;
}

export function ledgerOf(
  application: { approvedAmount: number | null; refundedAmount: number },
  lines: readonly Line[],
): Ledger {
  return {
    approved: application.approvedAmount,
    financed: financedAmount(lines),
    refunded: application.refundedAmount,
  };
}

/** What may still be refunded: the financed total less what was refunded. */
export function refundableAmount(ledger: Ledger): number {
  return ledger.financed - ledger.refunded;
}

export interface Movement {
  /** The financed total after the operation; unchanged when omitted. */
  financed?: number;
  /** The amount the operation refunds (0 when omitted). */
  refund?: number;
  /** An order change sets a new price: the financed total may then rise, up to the approved amount. */
  reprice?: boolean;
  /** Where in the request a refusal points. */
  attribute?: string;
}

/** The ledger after `movement`, or the refusal that keeps the invariants. */
export function move(ledger: Ledger, movement: Movement): Result<Ledger> {
  const financed = movement.financed ?? ledger.financed;
  const refund = movement.refund ?? 0;
  const at = movement.attribute;
  if (!Number.isSafeInteger(refund) || refund < 0)
    throw new RangeError(`a refund is a whole amount ≥ 0, not ${refund}`);
  if (ledger.approved !== null && financed > ledger.approved) {
    return refused(
      problem("TOTAL_PRICE_LIMIT_EXCEEDED", `the total may not rise above the approved ${ledger.approved}`, at),
    );
  }
  if (financed > ledger.financed && !movement.reprice) {
    return refused(
      problem(
        "TOTAL_PRICE_LIMIT_EXCEEDED",
        `the financed total may rise (from ${ledger.financed} to ${financed}) only by changing the order`,
        at,
      ),
    );
  }
  if (financed < ledger.refunded) {
    return refused(
      problem(
        "REFUND_LIMIT_EXCEEDED",
        `refunds of ${ledger.refunded} exceed the ${financed} that would remain financed`,
        at,
      ),
    );
  }
  const refundable = refundableAmount({ ...ledger, financed });
  if (refund > refundable) {
    return refused(
      problem("REFUND_LIMIT_EXCEEDED", `a refund of ${refund} exceeds the ${refundable} still refundable`, at),
    );
  }
  return ok({ approved: ledger.approved, financed, refunded: ledger.refunded + refund });
}

/** Approval fixes the ceiling of every later order change at the financed total. */
export function approve(ledger: Ledger): Ledger {
  return { ...ledger, approved: ledger.financed };
}
