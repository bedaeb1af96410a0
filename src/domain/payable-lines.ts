/**
 * Which order lines the partner is paid for (CONTRACT 6b): the specification's step 4 transfers funds
 * when items are sent, or when they are delivered, by agreement (`settlesOn`). Pure: no HTTP, no SQL.
 *
 * - A goods line is payable once SENT, DELIVERED or RETURNED (`settlesOn: SENT`), or once DELIVERED or
 *   RETURNED (`settlesOn: DELIVERED`: a return proves the goods reached the customer).
 * - A DISCOUNT line that is not CANCELLED is payable as soon as any goods line is: the discount applies
 *   to what went out first, as refunds are measured (ledger.ts: what went out less the goods not sent).
 *
 * Line states only move forward and cancelling touches only goods not sent, so a payable line stays
 * payable; settlement-entries.ts still reverses one that stops being (a legacy discount cancelled).
 */
import type { LineState } from "./application-state";
import { isDiscount, type Line } from "./order-lines";
import type { SettlesOn } from "./partner-terms";

const PAYABLE_GOODS: Record<SettlesOn, readonly LineState[]> = {
  SENT: ["SENT", "DELIVERED", "RETURNED"],
  DELIVERED: ["DELIVERED", "RETURNED"],
};

/** The ids of the payable lines of one application. */
export function payableLineIds(lines: readonly Line[], settlesOn: SettlesOn): Set<string> {
  const goods = lines.filter((l) => !isDiscount(l) && PAYABLE_GOODS[settlesOn].includes(l.state));
  const discounts = goods.length > 0 ? lines.filter((l) => isDiscount(l) && l.state !== "CANCELLED") : [];
  return new Set([...goods, ...discounts].map((l) => l.id));
}
