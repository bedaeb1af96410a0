import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { REPORT_COLUMNS } from "../../src/domain/payout-report";
import { totalsOf } from "../../src/domain/payouts";
import type { SettlementEntry } from "../../src/domain/settlement-entries";
import { payoutReportCsv } from "../../src/settlement/csv";

const at = Date.UTC(2026, 10, 23, 10, 30);

function entry(i: number, type: SettlementEntry["type"], amount: number, orderNumber = "2026-0001"): SettlementEntry {
  return {
    id: `entry-${i}`,
    partnerId: "partner-1",
    type,
    amount,
    currency: "CZK",
    applicationId: "app-1",
    orderNumber,
    variableSymbols: ["2026001"],
    lineId: type === "REFUND" ? null : "line-1",
    shipmentId: type === "REFUND" ? null : "ship-1",
    refundId: type === "REFUND" ? "refund-1" : null,
    createdAt: at,
    payoutId: "payout-1",
  };
}

/** What a standard parser reads back: the header and a record per row, every field as text. */
function parse(csv: string) {
  const parsed = Papa.parse<Record<string, string>>(csv, { header: true, skipEmptyLines: false });
  expect(parsed.errors).toEqual([]);
  return parsed;
}

describe("a payout's CSV report", () => {
  const entries = [
    entry(1, "SALE", 2_499_000, 'Order "42", shelf A\r\nsecond line'),
    entry(2, "FEE", -62_475),
    entry(3, "FEE_VAT", -13_120),
    entry(4, "REFUND", -129_000, '=HYPERLINK("https://evil.example")'),
  ];

  it("reads back with a standard parser: a header row and one row per entry, the amounts adding up to the payout", () => {
    const csv = payoutReportCsv({ reference: "1000000008" }, entries, "Europe/Prague");
    const { data, meta } = parse(csv);
    expect(meta.fields).toEqual([...REPORT_COLUMNS]);
    expect(data).toHaveLength(entries.length);
    expect(data.map((row) => row.entryId)).toEqual(entries.map((e) => e.id));
    const sum = data.reduce((total, row) => total + Number(row.amount), 0);
    expect(sum).toBe(totalsOf(entries).net);
    expect(data[0]).toEqual({
      payoutReference: "1000000008",
      entryId: "entry-1",
      createdAt: "2026-11-23T11:30:00+01:00",
      type: "SALE",
      amount: "2499000",
      currency: "CZK",
      applicationId: "app-1",
      orderNumber: 'Order "42", shelf A\r\nsecond line',
      variableSymbols: "2026001",
      shipmentId: "ship-1",
      shipmentReference: "",
      refundId: "",
    });
  });

  it("is RFC 4180: CRLF line ends, quotes doubled inside quoted fields, negative amounts as plain numbers", () => {
    const csv = payoutReportCsv({ reference: "1000000008" }, entries, "UTC");
    expect(csv.split("\r\n")[0]).toBe(REPORT_COLUMNS.join(","));
    expect(csv).toContain('"Order ""42"", shelf A\r\nsecond line"');
    expect(csv).toContain(",FEE,-62475,CZK,");
  });

  it("keeps a spreadsheet from running a partner's text as a formula", () => {
    const { data } = parse(payoutReportCsv({ reference: "1000000008" }, entries, "UTC"));
    expect(data[3]!.orderNumber).toBe('\'=HYPERLINK("https://evil.example")');
  });
});
