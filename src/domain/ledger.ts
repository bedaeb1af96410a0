/**
 * The money of an application: the approved amount, the financed total, what went out, the refunded
 * total. Every operation that moves money asks `move`, so the invariants are stated and enforced here
 * once:
 *
 *   0 ≤ refunded ≤ financed ≤ approved      (approved: once the application is approved)
 *   refunded ≤ what went out                (money is refunded only for goods that went out)
 *   what went out ≥ 0 once any line went out
 *   the financed total only falls, except by an order change (which may not rise above approved);
 *   the refunded total only rises.
 *
 * The financed total is the sum of the order lines that are not cancelled (DISCOUNT lines included).
 * What went out is the financed total without the goods not yet sent: the goods sent, delivered or
 * returned, less the order's discount, which applies to them until it settles (order-lines.ts). It is
 * what stays financed when the goods not sent are cancelled (by the partner, or a lapse), so refunds
 * are measured against it (CONTRACT 5: as Klarna refunds only what was captured), and a lapse can
 * always cancel them. Pure: no HTTP, no SQL.
 */
import { formatMoney } from "./money";
import { financedAmount, isDiscount, type Line } from "./order-lines";
import { ok, problem, type Result, refused } from "./result";

export interface Ledger {
  /** The currency of every amount: the application's (what the refusals' messages say). */
  currency: string;
  /** The financed total at approval; null before. */
  approved: number | null;
  financed: number;
  /** The financed total without the goods not yet sent (see above). */
  wentOut: number;
  refunded: number;
}

/** The financed total without the goods not yet sent: what refunds may take back. */
export function wentOutAmount(lines: readonly Line[]): number {
  return lines.reduce(
    (sum, line) =>
      line.state === "CANCELLED" || (line.state === "PROCESSING" && !isDiscount(line))
        ? sum
        : sum + line.totalPriceAmount,
    0,
  );
}

export function ledgerOf(
  application: { currency: string; approvedAmount: number | null; refundedAmount: number },
  lines: readonly Line[],
): Ledger {
  return {
    currency: application.currency,
    approved: application.approvedAmount,
    financed: financedAmount(lines),
    wentOut: wentOutAmount(lines),
    refunded: application.refundedAmount,
  };
}

/** What may still be refunded: what went out less what was refunded. */
export function refundableAmount(ledger: Ledger): number {
  return Math.max(0, ledger.wentOut - ledger.refunded);
}

export interface Movement {
  /** The financed total after the operation; unchanged when omitted. */
  financed?: number;
  /** What went out after the operation; unchanged when omitted. */
  wentOut?: number;
  /** The operation sends or delivers goods. */
  shipped?: boolean;
  /** The amount the operation refunds (0 when omitted). */
  refund?: number;
  /**
   * An order change, or a lapse, sets a new price (the new content's, or what went out): the financed
   * total may then rise, up to the approved amount.
   */
  reprice?: boolean;
  /** Where in the request a refusal points. */
  attribute?: string;
}

/** The ledger after `movement`, or the refusal that keeps the invariants. */
export function move(ledger: Ledger, movement: Movement): Result<Ledger> {
  const financed = movement.financed ?? ledger.financed;
  const wentOut = movement.wentOut ?? ledger.wentOut;
  const refund = movement.refund ?? 0;
  const at = movement.attribute;
  const money = (amount: number) => formatMoney(amount, ledger.currency);
  if (!Number.isSafeInteger(refund) || refund < 0)
    throw new RangeError(`a refund is a whole amount ≥ 0, not ${refund}`);
  if (ledger.approved !== null && financed > ledger.approved) {
    return refused(
      problem(
        "TOTAL_PRICE_LIMIT_EXCEEDED",
        `the total may not rise above the ${money(ledger.approved)} approved: keep the order at most that, or cancel the application and create one for the new order`,
        at,
      ),
    );
  }
  if (financed > ledger.financed && !movement.reprice) {
    return refused(
      problem(
        "TOTAL_PRICE_LIMIT_EXCEEDED",
        `the financed total may rise (from ${money(ledger.financed)} to ${money(financed)}) only by changing the order, before anything is sent`,
        at,
      ),
    );
  }
  if (financed < ledger.refunded) {
    return refused(
      problem(
        "REFUND_LIMIT_EXCEEDED",
        `${money(ledger.refunded)} was refunded, more than the ${money(financed)} that would remain financed: what was refunded stays; return goods instead of cancelling them`,
        at,
      ),
    );
  }
  // Goods that went out must cover the discount: what stays when the goods not sent are cancelled (by a
  // lapse) is never less than nothing.
  if (movement.shipped && wentOut < 0) {
    return refused(
      problem(
        "DISCOUNT_NOT_SEPARABLE",
        `the order's discount is more than the goods that would have gone out (${money(wentOut)}): send more of the goods at once, or the whole order`,
        at,
      ),
    );
  }
  const refundable = refundableAmount({ ...ledger, financed, wentOut });
  if (refund > refundable) {
    return refused(
      problem(
        "REFUND_LIMIT_EXCEEDED",
        refundable === 0 && ledger.refunded === 0
          ? `nothing is refundable before goods go out (a refund of ${money(refund)} was asked): reduce the order with cancel items or change order instead`
          : `a refund of ${money(refund)} exceeds the ${money(refundable)} still refundable (what was sent or delivered, less refunds): refund at most that`,
        at,
      ),
    );
  }
  return ok({ ...ledger, financed, wentOut, refunded: ledger.refunded + refund });
}

/** Approval fixes the ceiling of every later order change at the financed total. */
export function approve(ledger: Ledger): Ledger {
  return { ...ledger, approved: ledger.financed };
}
