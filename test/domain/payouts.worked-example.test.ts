/**
 * The worked example of issue 47 (for the partner's page on settlement): one order sent in two
 * shipments, one item returned, one goodwill refund, one payout. Its numbers are what a finance team
 * reconciles against the bank transfer, so this test checks every one of them.
 */

import { readFileSync } from "node:fs";
import path from "node:path";
import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { formatDate } from "../../src/clock";
import type { OrderItem } from "../../src/domain/order-lines";
import { planRefund, planReturn, planSend } from "../../src/domain/order-operations";
import { isPayoutReference } from "../../src/domain/payout-reference";
import { paymentsOf, planPayout, planPayoutMark } from "../../src/domain/payouts";
import type { Plan } from "../../src/domain/plan";
import type { Result } from "../../src/domain/result";
import type { SettlementEntry } from "../../src/domain/settlement-entries";
import type { Shipment } from "../../src/domain/shipments";
import { payoutReportCsv } from "../../src/settlement/csv";
import { lastCutoff } from "../../src/settlement/payout-cutoff";
import { application, context } from "../support/domain";
import { settle, settledAs } from "../support/settlement";

const PRAGUE = "Europe/Prague";
const prague = (iso: string) => Date.parse(iso); // written with +01:00, Prague's winter offset

const item = (code: string, unit: number, quantity: number, type = "PHYSICAL"): OrderItem => ({
  code,
  name: code,
  type,
  quantity,
  unitPrice: { amount: unit },
  totalPrice: { amount: unit * quantity },
  totalVat: { vatRate: 21, amount: Math.round((unit * quantity * 21) / 121) },
});

describe("the worked example: an order sent in two shipments, an item returned, a goodwill refund, one payout", () => {
  it("pays 25 042,00 Kč, which the report's rows add up to", () => {
    const ctx = context(prague("2026-11-20T09:00:00+01:00"));
    let current = settledAs(
      application(
        [item("BIKE-29", 2_499_000, 1), item("HELMET", 129_000, 2), item("SHIPPING", 9_900, 1, "SHIPPING_FEE")],
        "READY",
        ctx,
      ),
      { application: { partnerId: "bikeshop", orderNumber: "2026-1187", variableSymbols: ["20261187"] } },
    );
    const shipments: Shipment[] = [];
    const entries: SettlementEntry[] = [];
    const step = (at: string, plan: (at: number) => Result<Plan>) => {
      ctx.at = prague(at);
      const result = plan(ctx.at);
      if (!result.ok) throw new Error(JSON.stringify(result.problems));
      const done = settle(current, result.value);
      current = done.current;
      if (done.shipment) shipments.push(done.shipment);
      entries.push(...done.entries);
      return done.entries.map((e) => [e.type, e.amount]);
    };

    // 23 November: the bike and the shipping go out, invoice FV-2026-1187-1.
    const first = step("2026-11-23T10:00:00+01:00", () =>
      planSend(
        current,
        {
          items: [{ code: "BIKE-29" }, { code: "SHIPPING" }],
          sentDate: "2026-11-23",
          reference: "FV-2026-1187-1",
          deliveryTrackingNumber: "DR1187A",
        },
        ctx,
      ),
    );
    expect(first).toEqual([
      ["SALE", 2_499_000],
      ["FEE", -62_475], // 2.5 % of 24 990,00
      ["FEE_VAT", -13_120], // 21 % of 624,75 = 131,1975
      ["SALE", 9_900],
      ["FEE", -248], // 2,475 rounds half away from zero to 2,48
      ["FEE_VAT", -52], // 0,5208
    ]);
    // 24 November: both helmets, invoice FV-2026-1187-2.
    const second = step("2026-11-24T15:30:00+01:00", () =>
      planSend(current, { sentDate: "2026-11-24", reference: "FV-2026-1187-2" }, ctx),
    );
    expect(second).toEqual([
      ["SALE", 258_000],
      ["FEE", -6_450],
      ["FEE_VAT", -1_355], // 13,545 rounds half away from zero to 13,55
    ]);
    // 26 November: one helmet comes back; 27 November: 500 Kč off for a scratched frame.
    expect(
      step("2026-11-26T11:00:00+01:00", () => planReturn(current, { items: [{ code: "HELMET", quantity: 1 }] }, ctx)),
    ).toEqual([["REFUND", -129_000]]);
    expect(
      step("2026-11-27T16:45:00+01:00", () =>
        planRefund(current, { totalPrice: { amount: 50_000, currency: "CZK" }, reason: "scratched frame" }, ctx),
      ),
    ).toEqual([["REFUND", -50_000]]);
    expect(shipments.map((s) => [s.reference, s.totalPrice.amount, s.tracking.map((t) => t.number)])).toEqual([
      ["FV-2026-1187-1", 2_508_900, ["DR1187A"]],
      ["FV-2026-1187-2", 258_000, []],
    ]);

    // 28 November, five past midnight in Prague: the cron closes the payout of the day that ended.
    ctx.at = prague("2026-11-28T00:05:00+01:00");
    const periodEnd = lastCutoff(ctx.at, 0, PRAGUE);
    expect(periodEnd).toBe(prague("2026-11-28T00:00:00+01:00"));
    const closed = planPayout(
      entries,
      { partnerId: "bikeshop", currency: "CZK", periodEnd, reference: "4281187007" },
      ctx,
    );
    if (!closed.ok) throw new Error("nothing to pay");
    const { payout, entryIds } = closed.value;
    expect(payout.totals).toEqual({
      sales: 2_766_900, //  24 990,00 + 99,00 + 2 × 1 290,00
      refunds: -179_000, //  1 290,00 returned + 500,00 goodwill
      fees: -69_173, //    624,75 + 2,48 + 64,50
      feeVat: -14_527, //  131,20 + 0,52 + 13,55
      net: 2_504_200, // 25 042,00 Kč to the partner's account, variable symbol 4281187007
    });
    expect(isPayoutReference(payout.reference)).toBe(true);
    expect(payout.entries).toBe(11);
    expect(entryIds).toEqual(entries.map((e) => e.id));

    // The report: eleven rows, their amounts the transfer.
    const taken = entries.map((e) => ({ ...e, payoutId: payout.id }));
    const report = Papa.parse<Record<string, string>>(payoutReportCsv(payout, taken, PRAGUE), { header: true });
    expect(report.data).toHaveLength(11);
    expect(report.data.reduce((sum, row) => sum + Number(row.amount), 0)).toBe(payout.totals.net);
    expect(report.data[0]).toMatchObject({
      payoutReference: "4281187007",
      createdAt: "2026-11-23T10:00:00+01:00",
      type: "SALE",
      amount: "2499000",
      orderNumber: "2026-1187",
      variableSymbols: "20261187",
      shipmentId: shipments[0]!.id,
    });

    // The bank confirms on 30 November: Skip Pay's payments of the application show the one payment.
    const paid = planPayoutMark(payout, "PAID", { at: prague("2026-11-30T09:00:00+01:00") });
    if (!paid.ok) throw new Error("refused");
    const payments = paymentsOf(current.application.id, taken, [paid.value]);
    expect(payments.map((p) => ({ ...p, date: formatDate(p.paidAt, PRAGUE) }))).toEqual([
      {
        paymentId: payout.id,
        paidAt: prague("2026-11-30T09:00:00+01:00"),
        date: "2026-11-30",
        applicationId: current.application.id,
        value: { amount: 2_504_200, currency: "CZK" },
      },
    ]);

    // docs/partner/settlement.md tells this story: its table holds these very numbers.
    const rows = entries.flatMap((e) =>
      e.type === "SALE"
        ? [[e.amount, ...entries.filter((f) => f.lineId === e.lineId && f.type !== "SALE").map((f) => f.amount), null]]
        : e.type === "REFUND"
          ? [[null, null, null, e.amount]]
          : [],
    );
    const { sales, fees, feeVat, refunds, net } = payout.totals;
    expect(documentedTable()).toEqual({ rows: [...rows, [sales, fees, feeVat, refunds]], net });
  });
});

/** The worked example's table of docs/partner/settlement.md: each row's SALE, FEE, FEE_VAT, REFUND in minor units. */
function documentedTable() {
  const page = readFileSync(path.join(import.meta.dirname, "../../docs/partner/settlement.md"), "utf8");
  const table = page.split("<!-- worked-example -->")[1]!.split("<!-- /worked-example -->")[0]!;
  // "24 990,00 Kč" as written in Czech: spaces between thousands, a decimal comma, "−" for minus.
  const kc = (text: string) => {
    const plain = text.replaceAll("*", "").replaceAll(" ", "").replace("−", "-").trim();
    return plain === "" ? null : Math.round(Number(plain.replace(",", ".")) * 100);
  };
  const rows = table
    .trim()
    .split("\n")
    .slice(2)
    .map((line) => line.split("|").slice(3, 7).map(kc));
  const net = kc(/net \*\*([^*]+)\*\*/.exec(table)![1]!);
  return { rows, net };
}
