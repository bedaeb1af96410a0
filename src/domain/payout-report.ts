/**
 * The rows of a payout's report (CONTRACT 6b): one per entry, in the order they were entered, amounts
 * in minor units as the ledger holds them, so that a finance team's sum of the amount column is the
 * payout's net, the amount of the bank transfer. Pure: src/settlement/csv.ts writes them.
 */
import type { Payout } from "./payouts";
import type { SettlementEntry } from "./settlement-entries";

export const REPORT_COLUMNS = [
  "payoutReference",
  "entryId",
  "createdAt",
  "type",
  "amount",
  "currency",
  "applicationId",
  "orderNumber",
  "variableSymbols",
  "shipmentId",
  "shipmentReference",
  "refundId",
] as const;

export type ReportRow = Record<(typeof REPORT_COLUMNS)[number], string | number>;

/** An entry as its report reads it, with the partner's own reference of the shipment it went out in. */
export type ReportEntry = Omit<SettlementEntry, "partnerId" | "lineId" | "payoutId"> & {
  shipmentReference?: string | null;
};

/**
 * The rows of `entries`, those the payout took. Every row carries the payout's reference, so rows of
 * several reports put together still say which transfer paid them; an entry's variable symbols are
 * separated by spaces, and what an entry has not (a sale's refund) is empty. The shipment's reference is
 * the partner's own (its invoice number): what its books know the sale by.
 */
export function payoutReportRows(
  payout: Pick<Payout, "reference">,
  entries: readonly ReportEntry[],
  formatTime: (ms: number) => string,
): ReportRow[] {
  return [...entries]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((e) => ({
      payoutReference: payout.reference,
      entryId: e.id,
      createdAt: formatTime(e.createdAt),
      type: e.type,
      amount: e.amount,
      currency: e.currency,
      applicationId: e.applicationId,
      orderNumber: e.orderNumber,
      variableSymbols: e.variableSymbols.join(" "),
      shipmentId: e.shipmentId ?? "",
      shipmentReference: e.shipmentReference ?? "",
      refundId: e.refundId ?? "",
    }));
}
