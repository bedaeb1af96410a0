/**
 * Random operation sequences (order-sequences.ts) with their settlement: the shipments and entries each
 * accepted step adds, and the checks that the money entered is the money owed. The checks state the
 * rules again independently of src/domain/payable-lines.ts and settlement-fees.ts.
 */
import fc from "fast-check";
import { expect } from "vitest";
import type { LineState } from "../../src/domain/application-state";
import type { FinancingType, PartnerTerms } from "../../src/domain/partner-terms";
import type { Current, PlanContext, RefundRecord } from "../../src/domain/plan";
import type { SettledApplication, SettlementEntry } from "../../src/domain/settlement-entries";
import type { Shipment } from "../../src/domain/shipments";
import { application } from "./domain";
import { type Operation, plan, type Start } from "./order-sequences";
import { settle, settledAs } from "./settlement";

/** Random terms: both agreements, fees from nothing to the whole sale, any VAT rate. */
export const partnerTerms: fc.Arbitrary<PartnerTerms> = fc.record({
  settlesOn: fc.constantFrom("SENT", "DELIVERED"),
  feeBasisPoints: fc.record({
    DEFERRED_PAYMENT: fc.oneof(fc.constantFrom(0, 250, 10_000), fc.integer({ min: 0, max: 10_000 })),
    PAY_IN_THREE: fc.oneof(fc.constantFrom(350), fc.integer({ min: 0, max: 1_000 })),
  }),
  feeVatRate: fc.oneof(fc.constant(21), fc.integer({ min: 0, max: 100 })),
});

export const financingType = fc.constantFrom<FinancingType>("DEFERRED_PAYMENT", "PAY_IN_THREE");

/** One application and everything settlement recorded for it. */
export interface Account {
  current: Current;
  application: SettledApplication;
  terms: PartnerTerms;
  shipments: Shipment[];
  refunds: RefundRecord[];
  entries: SettlementEntry[];
}

export function openAccount(
  items: Parameters<typeof application>[0],
  start: Start,
  ctx: PlanContext,
  ids: { id: string; partnerId: string; type: FinancingType },
  terms: PartnerTerms,
): Account {
  const current = settledAs(application(items, start, ctx), { terms, application: ids });
  return { current, application: current.settlement.application, terms, shipments: [], refunds: [], entries: [] };
}

/** Runs one operation (not `wait`, the clock's); an accepted one is recorded with what it adds. */
export function operate(
  account: Account,
  op: Operation,
  ctx: PlanContext,
): { accepted: boolean; added: SettlementEntry[] } {
  const result = plan(account.current, op, ctx);
  if (!result.ok) return { accepted: false, added: [] };
  const done = settle(account.current, result.value);
  account.current = done.current;
  if (done.shipment) account.shipments.push(done.shipment);
  if (result.value.refund) account.refunds.push(result.value.refund);
  account.entries.push(...done.entries);
  return { accepted: true, added: done.entries };
}

const GOODS_PAYABLE: Record<PartnerTerms["settlesOn"], LineState[]> = {
  SENT: ["SENT", "DELIVERED", "RETURNED"],
  DELIVERED: ["DELIVERED", "RETURNED"],
};

/** The financed price of the lines the partner is to be paid for, by the rule as CONTRACT 6b words it. */
function payablePrice(current: Current, terms: PartnerTerms): number {
  const goods = current.lines.filter((l) => l.type !== "DISCOUNT" && GOODS_PAYABLE[terms.settlesOn].includes(l.state));
  const discounts =
    goods.length === 0 ? [] : current.lines.filter((l) => l.type === "DISCOUNT" && l.state !== "CANCELLED");
  return [...goods, ...discounts].reduce((sum, l) => sum + l.totalPriceAmount, 0);
}

/** round(x) half away from zero, for x = numerator / denominator, in floating point (exact at these sizes). */
const rounded = (numerator: number, denominator: number) =>
  Math.sign(numerator) * Math.round(Math.abs(numerator) / denominator) + 0;

const sum = (entries: readonly SettlementEntry[], type: SettlementEntry["type"]) =>
  entries.reduce((total, e) => (e.type === type ? total + e.amount : total), 0);

/**
 * What an application's entries must be after every step: its sales the price of its payable lines, its
 * refunds its refunded total, each sale entered once per line with its fee and the fee's VAT by the
 * formula, each refund once; its shipments hold every unit sent, once.
 */
export function checkAccount(account: Account): void {
  const { current, terms, entries, refunds, shipments } = account;
  expect(sum(entries, "SALE")).toBe(payablePrice(current, terms));
  expect(sum(entries, "REFUND")).toBe(0 - current.application.refundedAmount);
  expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);

  const sales = entries.filter((e) => e.type === "SALE");
  // Under the rules of today no line stops being payable, so no sale is ever reversed: one per line.
  expect(new Set(sales.map((e) => e.lineId)).size).toBe(sales.length);
  const bp = terms.feeBasisPoints[account.application.type];
  for (const sale of sales) {
    const fees = entries.filter((e) => e.lineId === sale.lineId && e.type !== "SALE");
    const fee = rounded(sale.amount * bp, 10_000);
    expect(fees.map((e) => [e.type, e.amount, e.shipmentId])).toEqual([
      ["FEE", 0 - fee, sale.shipmentId],
      ["FEE_VAT", 0 - rounded(fee * terms.feeVatRate, 100), sale.shipmentId],
    ]);
    // Every sale names the shipment that took its goods out.
    expect(shipments.some((s) => s.id === sale.shipmentId)).toBe(true);
  }
  const refundEntries = entries.filter((e) => e.type === "REFUND");
  expect(refundEntries.map((e) => [e.refundId, e.amount])).toEqual(refunds.map((r) => [r.id, -r.amount]));

  // What was sent (a line with a sent date) is in the shipments, whatever happened to it since.
  const sent = current.lines.filter((l) => l.sentDate !== null);
  expect(shipments.reduce((total, s) => total + s.totalPrice.amount, 0)).toBe(
    sent.reduce((total, l) => total + l.totalPriceAmount, 0),
  );
  const shipped = shipments.flatMap((s) => s.lineIds);
  expect(new Set(shipped).size).toBe(shipped.length);
  for (const shipment of shipments) {
    expect(shipment.totalPrice.amount).toBe(shipment.items.reduce((total, i) => total + i.totalPrice.amount, 0));
  }
}
