import { describe, expect, it } from "vitest";
import { planCancellation, planCustomerAnswer, planDecision } from "../../src/domain/application-operations";
import { planRefund } from "../../src/domain/order-operations";
import { application, applied, context, item, refusal } from "../support/domain";

const ctx = context();
const LIMITS = { DEFERRED_PAYMENT: { CZK: 5000 } };

describe("the decision", () => {
  it("approves within the limit and fixes the approved amount at the financed total", () => {
    const current = application([item("KB-01", 1000), item("DISC", -200)], "PROCESSING");
    const decided = applied(current, planDecision(current, { agreedNow: false, limits: LIMITS }, ctx));
    expect(decided.application).toMatchObject({ state: "READY", stateReason: "READY_TO_SHIP", approvedAmount: 800 });
  });

  it("rejects above the limit, keeping the reasons", () => {
    const current = application([item("KB-01", 6000)], "PROCESSING");
    const plan = planDecision(current, { agreedNow: false, limits: LIMITS }, ctx);
    expect(plan.ok && plan.value.application).toMatchObject({
      state: "REJECTED",
      approvedAmount: null,
      decisionReasons: ["AMOUNT_OVER_LIMIT"],
      decidedAt: ctx.at,
    });
  });
});

describe("the cancellation", () => {
  it("cancels every line and leaves nothing financed", () => {
    const current = application([item("KB-01", 1000)]);
    const cancelled = applied(current, planCancellation(current, { reason: "APPLICATION_CANCELLED_BY_ERP" }, ctx));
    expect(cancelled.lines.map((l) => l.state)).toEqual(["CANCELLED"]);
    expect(cancelled.application).toMatchObject({
      state: "CANCELLED",
      totalAmount: 0,
      cancelReason: "APPLICATION_CANCELLED_BY_ERP",
    });
  });

  it("is refused while something is refunded: the refund would exceed what remains financed", () => {
    const current = application([item("KB-01", 1000)]);
    const refunded = applied(current, planRefund(current, { totalPrice: { amount: 100, currency: "CZK" } }, ctx));
    expect(refusal(planCancellation(refunded, { reason: "APPLICATION_CANCELLED_OTHER" }, ctx))).toEqual([
      "REFUND_LIMIT_EXCEEDED",
    ]);
  });
});

describe("the customer's answer", () => {
  it("is taken once: after the outcome a second answer is refused", () => {
    const current = application([item("KB-01", 1000)], "PROCESSING");
    const request = { action: "confirm", agreedNow: false, limits: LIMITS } as const;
    const approved = applied(current, planCustomerAnswer(current, request, ctx));
    expect(refusal(planCustomerAnswer(approved, { ...request, action: "cancel" }, ctx))).toEqual([
      "APPLICATION_ALREADY_DECIDED",
    ]);
  });

  it("cancel cancels with the customer's reason", () => {
    const current = application([item("KB-01", 1000)], "PROCESSING");
    const plan = planCustomerAnswer(current, { action: "cancel", agreedNow: false, limits: LIMITS }, ctx);
    expect(plan.ok && plan.value.application).toMatchObject({
      state: "CANCELLED",
      cancelReason: "APPLICATION_CANCELLED_BY_CUSTOMER",
    });
  });
});
