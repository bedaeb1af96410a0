import { describe, expect, it } from "vitest";
import { ledgerOf, refundableAmount } from "../../src/domain/ledger";
import {
  planCancelItems,
  planChange,
  planDeliver,
  planRefund,
  planReturn,
  planSend,
} from "../../src/domain/order-operations";
import type { Current } from "../../src/domain/plan";
import { application, applied, context, item, refusal } from "../support/domain";

const CZK = (amount: number) => ({ amount, currency: "CZK" });
const ctx = context();
const send = (current: Current, items?: { code: string; quantity?: number }[]) =>
  applied(current, planSend(current, { items, sentDate: "2026-11-23" }, ctx));
const money = (current: Current) => {
  const { approved, financed, refunded, ...ledger } = ledgerOf(current.application, current.lines);
  return { approved, financed, refunded, refundable: refundableAmount({ approved, financed, refunded, ...ledger }) };
};
const states = (current: Current) => current.lines.map((l) => `${l.code}:${l.state}`);

/** The order of the issue: a keyboard of 1000 and a discount of 200, financed 800, approved. */
const discounted = () => application([item("KB-01", 1000), item("DISC", -200)]);

describe("a DISCOUNT line moves only with the whole order", () => {
  it("refuses to return the discount on its own, so refunds never exceed what was financed", () => {
    const sent = send(discounted());
    expect(refusal(planReturn(sent, { items: [{ code: "DISC" }] }, ctx))).toEqual(["DISCOUNT_NOT_SEPARABLE"]);
    expect(refusal(planReturn(sent, { items: [{ type: "DISCOUNT" }] }, ctx))).toEqual(["DISCOUNT_NOT_SEPARABLE"]);
    expect(refusal(planRefund(sent, { totalPrice: CZK(1000) }, ctx))).toEqual(["REFUND_LIMIT_EXCEEDED"]);
    expect(money(sent)).toEqual({ approved: 800, financed: 800, refunded: 0, refundable: 800 });
  });

  it("refuses to cancel the discount on its own, so the financed total never rises above the approved one", () => {
    const current = discounted();
    expect(refusal(planCancelItems(current, { items: [{ code: "DISC" }] }, ctx))).toEqual(["DISCOUNT_NOT_SEPARABLE"]);
    expect(refusal(planRefund(current, { totalPrice: CZK(1000) }, ctx))).toEqual(["REFUND_LIMIT_EXCEEDED"]);
  });

  it("names the refused entry of the request", () => {
    const result = planCancelItems(discounted(), { items: [{ code: "KB-01" }, { code: "DISC" }] }, ctx);
    expect(result.ok ? [] : result.problems).toEqual([
      expect.objectContaining({ code: "DISCOUNT_NOT_SEPARABLE", attribute: "items[1]" }),
    ]);
  });

  it("is cancelled with the last of the other items: the whole order is cancelled, nothing financed", () => {
    const current = discounted();
    const cancelled = applied(current, planCancelItems(current, { items: [{ code: "KB-01" }] }, ctx));
    expect(states(cancelled)).toEqual(["KB-01:CANCELLED", "DISC:CANCELLED"]);
    expect(cancelled.application).toMatchObject({ state: "CANCELLED", stateReason: "CANCELLED_NOT_PAID" });
    expect(money(cancelled)).toMatchObject({ financed: 0, refunded: 0 });
  });

  it("comes back with the last of the other items, lowering that return's refund by the discount", () => {
    const sent = send(discounted());
    const returned = applied(sent, planReturn(sent, { items: [{ code: "KB-01" }] }, ctx));
    expect(states(returned)).toEqual(["KB-01:RETURNED", "DISC:RETURNED"]);
    expect(money(returned)).toEqual({ approved: 800, financed: 800, refunded: 800, refundable: 0 });
    expect(returned.application).toMatchObject({ state: "CANCELLED", stateReason: "CANCELLED_RETURNED" });
  });

  it("stays whole with the goods that remain until the last of them comes back", () => {
    const order = application([item("KB-01", 1000), item("BK-7", 300), item("DISC", -200)]);
    const sent = send(order);
    const first = planReturn(sent, { items: [{ code: "BK-7" }] }, ctx);
    expect(first.ok && first.value.refund?.amount).toBe(300);
    const one = applied(sent, first);
    expect(states(one)).toEqual(["KB-01:SENT", "BK-7:RETURNED", "DISC:SENT"]);
    const second = planReturn(one, { items: [{ code: "KB-01" }] }, ctx);
    expect(second.ok && second.value.refund?.amount).toBe(800);
    expect(money(applied(one, second))).toEqual({ approved: 1100, financed: 1100, refunded: 1100, refundable: 0 });
  });

  it("applies to what went out while the rest waits: an early return refunds at most what went out less it", () => {
    // The book went out (300, less the discount of 200 while the keyboard waits): 100 is refundable.
    const order = application([item("KB-01", 1000), item("BK-7", 300), item("DISC", -200)]);
    const bookSent = send(order, [{ code: "BK-7" }]);
    expect(money(bookSent)).toMatchObject({ financed: 1100, refundable: 100 });
    expect(refusal(planReturn(bookSent, { items: [{ code: "BK-7" }] }, ctx))).toEqual(["REFUND_LIMIT_EXCEEDED"]);
    const bookBack = applied(bookSent, planReturn(bookSent, { items: [{ code: "BK-7" }], totalPrice: CZK(100) }, ctx));
    // The keyboard never goes out: cancelled, the discount comes back with the book it was taken off.
    const done = applied(bookBack, planCancelItems(bookBack, { items: [{ code: "KB-01" }] }, ctx));
    expect(states(done)).toEqual(["KB-01:CANCELLED", "BK-7:RETURNED", "DISC:RETURNED"]);
    expect(money(done)).toEqual({ approved: 1100, financed: 100, refunded: 100, refundable: 0 });
    expect(done.application).toMatchObject({ state: "CANCELLED", stateReason: "CANCELLED_RETURNED" });
  });

  it("is cancelled, not returned, when the goods that came back were refunded beyond their discounted price", () => {
    // Everything went out, the book came back with its full price refunded, the keyboard comes back.
    const order = application([item("KB-01", 1000), item("BK-7", 300), item("DISC", -200)]);
    const sent = send(order);
    const bookBack = applied(sent, planReturn(sent, { items: [{ code: "BK-7" }] }, ctx));
    expect(money(bookBack)).toMatchObject({ refunded: 300, refundable: 800 });
    const done = applied(bookBack, planReturn(bookBack, { items: [{ code: "KB-01" }], totalPrice: CZK(800) }, ctx));
    expect(states(done)).toEqual(["KB-01:RETURNED", "BK-7:RETURNED", "DISC:RETURNED"]);
    expect(money(done)).toEqual({ approved: 1100, financed: 1100, refunded: 1100, refundable: 0 });
  });

  it("refuses to send goods that would not cover the discount, so that a lapse can keep them alone", () => {
    const order = application([item("KB-01", 1000), item("BK-7", 100), item("DISC", -200)]);
    expect(refusal(planSend(order, { items: [{ code: "BK-7" }], sentDate: "2026-11-23" }, ctx))).toEqual([
      "DISCOUNT_NOT_SEPARABLE",
    ]);
    expect(refusal(planDeliver(order, { items: [{ code: "BK-7" }], deliveryDate: "2026-11-23" }, ctx))).toEqual([
      "DISCOUNT_NOT_SEPARABLE",
    ]);
    expect(states(send(order, [{ code: "KB-01" }]))).toEqual(["KB-01:SENT", "BK-7:PROCESSING", "DISC:PROCESSING"]);
  });

  it("is sent and delivered with the whole order like any line", () => {
    const sent = send(discounted());
    expect(states(sent)).toEqual(["KB-01:SENT", "DISC:SENT"]);
    const delivered = applied(sent, planDeliver(sent, { deliveryDate: "2026-11-24" }, ctx));
    expect(states(delivered)).toEqual(["KB-01:DELIVERED", "DISC:DELIVERED"]);
    expect(delivered.application.stateReason).toBe("READY_DELIVERED");
  });
});

describe("plans", () => {
  it("date a send and a delivery today, the service's date at the operation, unless the request gives one", () => {
    const current = discounted();
    const sent = applied(current, planSend(current, { items: [{ code: "KB-01" }] }, ctx));
    expect(sent.lines.find((l) => l.code === "KB-01")?.sentDate).toBe(ctx.today);
    const later = { ...ctx, at: ctx.at + 86_400_000, today: "2026-11-24" };
    const delivered = applied(sent, planDeliver(sent, {}, later));
    expect(delivered.lines.map((l) => [l.code, l.sentDate, l.deliveryDate])).toEqual([
      ["KB-01", ctx.today, "2026-11-24"],
      ["DISC", "2026-11-24", "2026-11-24"],
    ]);
  });

  it("record one event per change of state or reason, with the next sequence", () => {
    const current = discounted();
    const plan = planSend(current, { sentDate: "2026-11-23" }, ctx);
    expect(plan.ok && plan.value.event).toMatchObject({ sequence: 2, state: "READY", stateReason: "READY_SHIPPED" });
    const again = send(current, [{ code: "KB-01" }]);
    const more = planSend(again, { sentDate: "2026-11-23" }, ctx);
    expect(more.ok && more.value.event).toBeUndefined();
  });

  it("keep the totals of the application with the lines", () => {
    const current = discounted();
    const plan = planReturn(send(current), { items: [], totalPrice: CZK(150) }, ctx);
    expect(plan.ok && plan.value.application).toMatchObject({ totalAmount: 800, refundedAmount: 150 });
    expect(plan.ok && plan.value.refund).toMatchObject({ origin: "RETURN", amount: 150, currency: "CZK" });
    expect(plan.ok && plan.value.lines).toBeUndefined();
  });

  it("refuse an order change above the approved total, and allow one up to it", () => {
    const current = discounted();
    const content = (amount: number) => ({ order: { totalPrice: CZK(amount), items: [item("KB-02", amount)] } });
    expect(refusal(planChange(current, content(801), ctx))).toEqual(["TOTAL_PRICE_LIMIT_EXCEEDED"]);
    const changed = applied(current, planChange(current, content(800), ctx));
    expect(states(changed)).toEqual(["KB-02:PROCESSING"]);
  });

  it("refuse money in another currency with the 400 code CURRENCY_MISMATCH", () => {
    expect(refusal(planRefund(discounted(), { totalPrice: { amount: 10, currency: "EUR" } }, ctx))).toEqual([
      "CURRENCY_MISMATCH",
    ]);
  });

  it("refuse what the state machine refuses, first", () => {
    const processing = application([item("KB-01", 1000)], "PROCESSING");
    expect(refusal(planSend(processing, { sentDate: "2026-11-23" }, ctx))).toEqual(["APPLICATION_NOT_READY"]);
    expect(refusal(planRefund(processing, { totalPrice: { amount: 10, currency: "EUR" } }, ctx))).toEqual([
      "APPLICATION_NOT_READY",
    ]);
  });
});
