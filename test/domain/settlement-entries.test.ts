import { describe, expect, it } from "vitest";
import { planCancelItems, planDeliver, planRefund, planReturn, planSend } from "../../src/domain/order-operations";
import { DEFAULT_TERMS, type PartnerTerms } from "../../src/domain/partner-terms";
import type { Current } from "../../src/domain/plan";
import { settlementEntries } from "../../src/domain/settlement-entries";
import type { Shipment } from "../../src/domain/shipments";
import { application, context, item } from "../support/domain";
import { settle, settledAs } from "../support/settlement";

const SENT_DATE = "2026-11-23";
const CZK = (amount: number) => ({ amount, currency: "CZK" });
const DELIVERED: PartnerTerms = { ...DEFAULT_TERMS, settlesOn: "DELIVERED" };

/** A keyboard for 10 000, three cables for 900 and a discount of 500, approved. */
function order(ctx = context()): Current {
  return application([item("KB-01", 10_000), item("CABLE", 900, 3), item("DISC", -500)], "READY", ctx);
}

/** Entries as [type, amount, code of the line] for reading. */
const read = (current: Current, entries: ReturnType<typeof settlementEntries>) =>
  entries.map((e) => [e.type, e.amount, current.lines.find((l) => l.id === e.lineId)?.code ?? null]);

describe("settlement entries", () => {
  it("enter a sale per line that became payable, each with its fee and the fee's VAT, and the discount with the first goods", () => {
    const ctx = context();
    const start = order(ctx);
    const plan = planSend(start, { items: [{ code: "KB-01" }], sentDate: SENT_DATE }, ctx);
    if (!plan.ok) throw new Error("refused");
    const { current, shipment, entries } = settle(start, plan.value);
    expect(read(current, entries)).toEqual([
      ["SALE", 10_000, "KB-01"],
      ["FEE", -250, "KB-01"],
      ["FEE_VAT", -53, "KB-01"], // 52.5
      // The discount's fee is given back: −12.5 rounds away from zero to −13, its VAT −2.73 to −3.
      ["SALE", -500, "DISC"],
      ["FEE", 13, "DISC"],
      ["FEE_VAT", 3, "DISC"],
    ]);
    expect(entries.every((e) => e.shipmentId === shipment!.id)).toBe(true);
    expect(entries[0]).toEqual({
      id: entries[0]!.id,
      partnerId: "partner-1",
      type: "SALE",
      amount: 10_000,
      currency: "CZK",
      applicationId: "app-1",
      orderNumber: "ORDER-app-1",
      variableSymbols: ["2026001"],
      lineId: current.lines.find((l) => l.code === "KB-01")!.id,
      shipmentId: shipment!.id,
      refundId: null,
      createdAt: ctx.at,
      payoutId: null,
    });
    expect(new Set(entries.map((e) => e.id)).size).toBe(6);
  });

  it("enter a split piece as its own sale, and nothing again when a payable line is split by a return", () => {
    const ctx = context();
    let current = order(ctx);
    const shipments: Shipment[] = [];
    const step = (plan: ReturnType<typeof planSend>) => {
      if (!plan.ok) throw new Error(JSON.stringify(plan.problems));
      const done = settle(current, plan.value);
      if (done.shipment) shipments.push(done.shipment);
      current = done.current;
      return read(current, done.entries);
    };
    step(planSend(current, { items: [{ code: "KB-01" }], sentDate: SENT_DATE }, ctx));
    expect(step(planSend(current, { items: [{ code: "CABLE", quantity: 2 }], sentDate: SENT_DATE }, ctx))).toEqual([
      ["SALE", 600, "CABLE"],
      ["FEE", -15, "CABLE"],
      ["FEE_VAT", -3, "CABLE"], // 3.15
    ]);
    expect(step(planReturn(current, { items: [{ code: "CABLE", quantity: 1 }] }, ctx))).toEqual([
      ["REFUND", -300, null],
    ]);
    expect(step(planRefund(current, { totalPrice: CZK(1_000) }, ctx))).toEqual([["REFUND", -1_000, null]]);
    expect(step(planCancelItems(current, { items: [{ code: "CABLE" }] }, ctx))).toEqual([]);
    expect(shipments.map((s) => s.totalPrice.amount)).toEqual([10_000, 600]);
  });

  it("under settlesOn DELIVERED enter a sale at delivery, naming the shipment that took the line out, or at a return", () => {
    const ctx = context();
    const start = settledAs(order(ctx), { terms: DELIVERED });
    const send = planSend(start, { sentDate: SENT_DATE }, ctx);
    if (!send.ok) throw new Error("refused");
    const sent = settle(start, send.value);
    expect(sent.entries).toEqual([]);
    const deliver = planDeliver(sent.current, { items: [{ code: "KB-01" }], deliveryDate: "2026-11-25" }, ctx);
    if (!deliver.ok) throw new Error("refused");
    const delivered = settle(sent.current, deliver.value);
    expect(delivered.shipment).toBeUndefined();
    expect(read(delivered.current, delivered.entries).filter(([type]) => type === "SALE")).toEqual([
      ["SALE", 10_000, "KB-01"],
      ["SALE", -500, "DISC"],
    ]);
    expect(delivered.entries.every((e) => e.shipmentId === sent.shipment!.id)).toBe(true);
    const back = planReturn(delivered.current, { items: [{ code: "CABLE", quantity: 1 }] }, ctx);
    if (!back.ok) throw new Error("refused");
    const returned = settle(delivered.current, back.value);
    expect(read(returned.current, returned.entries)).toEqual([
      ["SALE", 300, "CABLE"],
      ["FEE", -8, "CABLE"], // 7.5
      ["FEE_VAT", -2, "CABLE"], // 1.68
      ["REFUND", -300, null],
    ]);
    expect(returned.entries[0]!.shipmentId).toBe(sent.shipment!.id);
  });

  it("reverse a sale whose line stops being payable (a discount cancelled under older rules), fees and all", () => {
    const ctx = context();
    const start = order(ctx);
    const before = start.lines.map((l) => ({ ...l, state: l.code === "CABLE" ? l.state : ("SENT" as const) }));
    const after = before.map((l) => (l.code === "DISC" ? { ...l, state: "CANCELLED" as const } : l));
    const entries = settlementEntries(
      start.settlement.application,
      { before, after, shipments: [] },
      DEFAULT_TERMS,
      ctx,
    );
    expect(read(start, entries)).toEqual([
      ["SALE", 500, "DISC"],
      ["FEE", -13, "DISC"],
      ["FEE_VAT", -3, "DISC"],
    ]);
  });

  it("take the fee of the application's financing type", () => {
    const ctx = context();
    const start = settledAs(order(ctx), { application: { type: "PAY_IN_THREE" } });
    const send = planSend(start, { sentDate: SENT_DATE }, ctx);
    if (!send.ok) throw new Error("refused");
    const { entries } = settle(start, send.value);
    expect(entries.filter((e) => e.type === "FEE").map((e) => e.amount)).toEqual([-350, -32, 18]); // 31.5, −17.5
  });
});
