/**
 * The settlement ledger's entries (CONTRACT 6b): what an operation on an application owes the partner,
 * written append-only in the same batch as the operation. Integer minor units, signed from the
 * partner's side: a SALE adds, its FEE and FEE_VAT and a REFUND take away. Pure: no HTTP, no SQL.
 *
 * Entries follow from the lines before and after the operation, never from a running total, so that
 * each is entered once, by the operation that caused it:
 *   Σ SALE of an application   = the financed price of its payable lines (payable-lines.ts)
 *   Σ REFUND of an application = −its refunded total
 */
import { originsOf } from "./line-origins";
import { isDiscount, type Line } from "./order-lines";
import type { FinancingType, PartnerTerms } from "./partner-terms";
import { payableLineIds } from "./payable-lines";
import type { RefundRecord } from "./plan";
import { feeOf, feeVatOf } from "./settlement-fees";
import type { Shipment } from "./shipments";

export const ENTRY_TYPES = ["SALE", "FEE", "FEE_VAT", "REFUND"] as const;
export type EntryType = (typeof ENTRY_TYPES)[number];

export interface SettlementEntry {
  id: string;
  partnerId: string;
  type: EntryType;
  amount: number;
  currency: string;
  applicationId: string;
  orderNumber: string;
  variableSymbols: string[];
  /** The line a SALE is for, and its FEE and FEE_VAT (which tie to their sale by it). */
  lineId: string | null;
  /** The shipment that took a sale's line out. */
  shipmentId: string | null;
  refundId: string | null;
  createdAt: number;
  /** The PENDING or PAID payout holding the entry; null while open (payouts.ts). */
  payoutId: string | null;
}

export interface SettledApplication {
  id: string;
  partnerId: string;
  type: FinancingType;
  currency: string;
  orderNumber: string;
  variableSymbols: string[];
}

/** What an operation did, as settlement reads it. */
export interface SettledOperation {
  before: readonly Line[];
  after: readonly Line[];
  /** The refund the operation recorded (a return's or a create-refund's). */
  refund?: Pick<RefundRecord, "id" | "amount"> | undefined;
  /** The application's shipments, the operation's own included: where each line went out. */
  shipments: readonly Pick<Shipment, "id" | "lineIds">[];
}

/**
 * The entries an operation adds:
 * - a SALE of its financed price for every line that became payable, one per line (a piece split off
 *   is its own line; a piece split off a payable line was paid for with it, and adds nothing), each
 *   with its FEE and FEE_VAT, even when they are 0, so that every sale reads the same in a report;
 * - a reversing SALE (negative, its fees positive) for a line that stops being payable, which the rules
 *   no longer allow but data stored under older ones may hold (a discount cancelled after goods went
 *   out): the invariant above holds whatever the lines did;
 * - a REFUND for the operation's refund record.
 * Fees are not returned with refunds (CONTRACT 6b): a refund is money back to the customer, the sale
 * it reduces stands.
 */
export function settlementEntries(
  application: SettledApplication,
  operation: SettledOperation,
  terms: PartnerTerms,
  ctx: { at: number; newId: () => string },
): SettlementEntry[] {
  const entry = (type: EntryType, amount: number, ids: Partial<SettlementEntry> = {}): SettlementEntry => ({
    id: ctx.newId(),
    partnerId: application.partnerId,
    type,
    amount,
    currency: application.currency,
    applicationId: application.id,
    orderNumber: application.orderNumber,
    variableSymbols: application.variableSymbols,
    lineId: null,
    shipmentId: null,
    refundId: null,
    createdAt: ctx.at,
    payoutId: null,
    ...ids,
  });
  const origins = originsOf(operation.before, operation.after);
  const sales = salesOf(operation, origins, terms);
  const shipmentOf = shipmentFinder(operation.shipments, origins);
  // A DISCOUNT becomes payable with the first goods, often before it is sent itself: its sale then
  // names the shipment of the goods that made it payable.
  const goodsShipment = sales.map(({ line }) => (isDiscount(line) ? null : shipmentOf(line))).find(Boolean) ?? null;
  const entries: SettlementEntry[] = [];
  for (const { line, amount } of sales) {
    const fee = feeOf(amount, terms.feeBasisPoints[application.type]);
    const ids = { lineId: line.id, shipmentId: shipmentOf(line) ?? goodsShipment };
    // 0 - x, not -x: a fee of 0 is entered as 0, never -0.
    entries.push(
      entry("SALE", amount, ids),
      entry("FEE", 0 - fee, ids),
      entry("FEE_VAT", 0 - feeVatOf(fee, terms.feeVatRate), ids),
    );
  }
  if (operation.refund) entries.push(entry("REFUND", -operation.refund.amount, { refundId: operation.refund.id }));
  return entries;
}

/** The lines whose payability the operation changed, with the sale that enters it (signed). */
function salesOf(
  operation: SettledOperation,
  origins: ReadonlyMap<string, Line>,
  terms: PartnerTerms,
): { line: Line; amount: number }[] {
  const payableBefore = payableLineIds(operation.before, terms.settlesOn);
  const payableAfter = payableLineIds(operation.after, terms.settlesOn);
  return operation.after.flatMap((line) => {
    const origin = origins.get(line.id);
    const was = origin !== undefined && payableBefore.has(origin.id);
    const is = payableAfter.has(line.id);
    if (was === is) return [];
    return [{ line, amount: is ? line.totalPriceAmount : -line.totalPriceAmount }];
  });
}

/** The shipment that took a line out: the one holding it, or the line it was split from. */
function shipmentFinder(
  shipments: SettledOperation["shipments"],
  origins: ReadonlyMap<string, Line>,
): (line: Line) => string | null {
  const holding = new Map<string, string>();
  for (const shipment of shipments) for (const id of shipment.lineIds) holding.set(id, shipment.id);
  return (line) => holding.get(line.id) ?? holding.get(origins.get(line.id)?.id ?? "") ?? null;
}
