import { describe, expect, it } from "vitest";
import { balanceOf, type Payout, paymentsOf, planPayout, planPayoutMark, totalsOf } from "../../src/domain/payouts";
import type { SettlementEntry } from "../../src/domain/settlement-entries";

const CUTOFF = Date.UTC(2026, 10, 23, 23); // midnight in Prague
let n = 0;

function entry(type: SettlementEntry["type"], amount: number, fields: Partial<SettlementEntry> = {}): SettlementEntry {
  n++;
  return {
    id: `entry-${String(n).padStart(3, "0")}`,
    partnerId: "partner-1",
    type,
    amount,
    currency: "CZK",
    applicationId: "app-1",
    orderNumber: "2026-0001",
    variableSymbols: ["2026001"],
    lineId: null,
    shipmentId: null,
    refundId: null,
    createdAt: CUTOFF - 3_600_000,
    payoutId: null,
    ...fields,
  };
}

/** A sale of 10 000 with its fee and the fee's VAT. */
const sale = (fields: Partial<SettlementEntry> = {}) => [
  entry("SALE", 10_000, fields),
  entry("FEE", -250, fields),
  entry("FEE_VAT", -53, fields),
];

const request = { partnerId: "partner-1", currency: "CZK", periodEnd: CUTOFF, reference: "1000000008" };
const ctx = { at: CUTOFF + 60_000, newId: () => "payout-1" };

describe("payouts", () => {
  it("total entries by type, signed as entered, the net their sum", () => {
    expect(totalsOf([...sale(), entry("REFUND", -1_000)])).toEqual({
      sales: 10_000,
      refunds: -1_000,
      fees: -250,
      feeVat: -53,
      net: 8_697,
    });
  });

  it("take every open entry of the partner and currency created before the cutoff, and nothing else", () => {
    const taken = [...sale(), entry("REFUND", -1_000, { createdAt: CUTOFF - 1 })];
    const left = [
      entry("SALE", 500, { createdAt: CUTOFF }),
      entry("SALE", 500, { currency: "EUR" }),
      entry("SALE", 500, { partnerId: "partner-2" }),
      entry("SALE", 500, { payoutId: "payout-0" }),
    ];
    const result = planPayout([...left, ...taken], request, ctx);
    expect(result).toEqual({
      ok: true,
      value: {
        payout: {
          id: "payout-1",
          partnerId: "partner-1",
          reference: "1000000008",
          currency: "CZK",
          periodEnd: CUTOFF,
          status: "PENDING",
          totals: { sales: 10_000, refunds: -1_000, fees: -250, feeVat: -53, net: 8_697 },
          entries: 4,
          createdAt: ctx.at,
          paidAt: null,
        },
        entryIds: taken.map((e) => e.id),
      },
    });
  });

  it("pay nothing when the entries add up to zero or less: they wait", () => {
    for (const entries of [[], [...sale(), entry("REFUND", -9_697)], [...sale(), entry("REFUND", -9_698)]]) {
      const result = planPayout(entries, request, ctx);
      expect(result.ok || result.problems.map((p) => p.code)).toEqual(["NOTHING_TO_PAY"]);
    }
    expect(planPayout([...sale(), entry("REFUND", -9_696)], request, ctx).ok).toBe(true);
  });

  it("are marked PAID or FAILED once, from PENDING", () => {
    const result = planPayout(sale(), request, ctx);
    if (!result.ok) throw new Error("refused");
    const { payout } = result.value;
    const paid = planPayoutMark(payout, "PAID", { at: CUTOFF + 86_400_000 });
    expect(paid).toEqual({ ok: true, value: { ...payout, status: "PAID", paidAt: CUTOFF + 86_400_000 } });
    expect(planPayoutMark(payout, "FAILED", { at: CUTOFF })).toEqual({
      ok: true,
      value: { ...payout, status: "FAILED", paidAt: null },
    });
    for (const status of ["PAID", "FAILED"] as const) {
      const again = planPayoutMark({ ...payout, status }, "PAID", { at: CUTOFF });
      expect(again.ok || again.problems).toEqual([
        { code: "PAYOUT_NOT_PENDING", message: `the payout is ${status} already`, attribute: "status" },
      ]);
    }
  });

  it("leave a balance per currency of what is open", () => {
    expect(balanceOf([...sale(), entry("SALE", 2_000, { currency: "EUR" }), entry("REFUND", -300)])).toEqual([
      { currency: "CZK", sales: 10_000, refunds: -300, fees: -250, feeVat: -53, net: 9_397 },
      { currency: "EUR", sales: 2_000, refunds: 0, fees: 0, feeVat: 0, net: 2_000 },
    ]);
    expect(balanceOf([])).toEqual([]);
  });

  it("read as Skip Pay's payments of an application: each PAID payout holding its entries, with their sum", () => {
    const payout = (id: string, status: Payout["status"], paidAt: number | null): Payout => ({
      id,
      partnerId: "partner-1",
      reference: "1000000008",
      currency: "CZK",
      periodEnd: CUTOFF,
      status,
      totals: { sales: 0, refunds: 0, fees: 0, feeVat: 0, net: 1 },
      entries: 1,
      createdAt: CUTOFF,
      paidAt,
    });
    const entries = [
      ...sale({ payoutId: "payout-2" }),
      entry("REFUND", -1_000, { payoutId: "payout-3" }),
      ...sale({ payoutId: "payout-4" }),
      entry("SALE", 7, { payoutId: "payout-2", applicationId: "app-2" }),
      entry("SALE", 5),
    ];
    const payouts = [payout("payout-4", "PENDING", null), payout("payout-3", "PAID", 2), payout("payout-2", "PAID", 1)];
    expect(paymentsOf("app-1", entries, payouts)).toEqual([
      { paymentId: "payout-2", paidAt: 1, applicationId: "app-1", value: { amount: 9_697, currency: "CZK" } },
      { paymentId: "payout-3", paidAt: 2, applicationId: "app-1", value: { amount: -1_000, currency: "CZK" } },
    ]);
    expect(paymentsOf("app-3", entries, payouts)).toEqual([]);
  });
});
