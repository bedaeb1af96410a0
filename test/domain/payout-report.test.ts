import { describe, expect, it } from "vitest";
import { payoutReportRows, REPORT_COLUMNS } from "../../src/domain/payout-report";
import type { SettlementEntry } from "../../src/domain/settlement-entries";

const base: SettlementEntry = {
  id: "entry-2",
  partnerId: "partner-1",
  type: "SALE",
  amount: 10_000,
  currency: "CZK",
  applicationId: "app-1",
  orderNumber: "2026-0001",
  variableSymbols: ["2026001", "77"],
  lineId: "line-1",
  shipmentId: "ship-1",
  refundId: null,
  createdAt: 0,
  payoutId: "payout-1",
};

describe("a payout's report rows", () => {
  it("are one per entry in the order entered, with the payout's reference on each and nothing for what an entry has not", () => {
    const refund: SettlementEntry = {
      ...base,
      id: "entry-1",
      type: "REFUND",
      amount: -300,
      shipmentId: null,
      refundId: "refund-1",
    };
    const rows = payoutReportRows(
      { reference: "1000000008" },
      [{ ...base, shipmentReference: "FV-1" }, refund],
      (ms) => `t${ms}`,
    );
    expect(rows).toEqual([
      {
        payoutReference: "1000000008",
        entryId: "entry-1",
        createdAt: "t0",
        type: "REFUND",
        amount: -300,
        currency: "CZK",
        applicationId: "app-1",
        orderNumber: "2026-0001",
        variableSymbols: "2026001 77",
        shipmentId: "",
        shipmentReference: "",
        refundId: "refund-1",
      },
      expect.objectContaining({
        entryId: "entry-2",
        type: "SALE",
        amount: 10_000,
        shipmentId: "ship-1",
        shipmentReference: "FV-1",
        refundId: "",
      }),
    ]);
    expect(Object.keys(rows[0]!)).toEqual([...REPORT_COLUMNS]);
  });
});
