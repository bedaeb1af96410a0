import { describe, expect, it } from "vitest";
import {
  planAdvance,
  planCancellation,
  planCreate,
  planCustomerAnswer,
  planDecision,
  planDue,
  planExpiry,
  planExtend,
  planPaid,
} from "../../src/domain/application-operations";
import { offerToken } from "../../src/domain/offer";
import { planChange, planRefund, planSend } from "../../src/domain/order-operations";
import { application, applied, context, item, refusal } from "../support/domain";

const ctx = context();
const DAY = 86_400_000;
const LIMITS = { DEFERRED_PAYMENT: { CZK: 5000 } };
const TODAY = "2026-11-23";
const SANDBOX = { sandbox: false, reviewMs: 600_000 };

describe("the decision", () => {
  it("approves within the limit and fixes the approved amount at the financed total", () => {
    const current = application([item("KB-01", 1000), item("DISC", -200)], "PROCESSING");
    const decided = applied(
      current,
      planDecision(current, { agreedNow: false, limits: LIMITS, termsDate: TODAY, ...SANDBOX }, ctx),
    );
    expect(decided.application).toMatchObject({ state: "READY", stateReason: "READY_TO_SHIP", approvedAmount: 800 });
  });

  it("records the offer accepted: the lines financed, their total and the terms of that day", () => {
    const current = application([item("KB-01", 1000), item("DISC", -200)], "PROCESSING");
    const plan = planDecision(current, { agreedNow: false, limits: LIMITS, termsDate: TODAY, ...SANDBOX }, ctx);
    expect(plan.ok && plan.value.application.acceptedOffer).toEqual({
      type: "DEFERRED_PAYMENT",
      currency: "CZK",
      total: 800,
      termsDate: TODAY,
      items: [
        { code: "KB-01", name: "KB-01", quantity: 1, total: 1000 },
        { code: "DISC", name: "DISC", quantity: 1, total: -200 },
      ],
      instalments: [{ number: 1, amount: 800, dueDate: "2026-12-23" }],
    });
  });

  it("rejects above the limit, keeping the reasons", () => {
    const current = application([item("KB-01", 6000)], "PROCESSING");
    const plan = planDecision(current, { agreedNow: false, limits: LIMITS, termsDate: TODAY, ...SANDBOX }, ctx);
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

  it("stays possible until goods go out: nothing can be refunded before, so no refund stands in its way", () => {
    const current = application([item("KB-01", 1000)]);
    expect(refusal(planRefund(current, { totalPrice: { amount: 1, currency: "CZK" } }, ctx))).toEqual([
      "REFUND_LIMIT_EXCEEDED",
    ]);
    const cancelled = applied(current, planCancellation(current, { reason: "APPLICATION_CANCELLED_OTHER" }, ctx));
    expect(cancelled.application).toMatchObject({ state: "CANCELLED", totalAmount: 0, refundedAmount: 0 });
  });
});

describe("the extension", () => {
  it("moves the deadline to 28 days from now and re-arms its reminder", () => {
    const current = application([item("KB-01", 1000)]);
    const later = { ...ctx, at: ctx.at + 10 * DAY };
    const extended = applied(current, planExtend(current, later));
    expect(extended.application).toMatchObject({ expiresAt: later.at + 28 * DAY, reminderAt: later.at + 21 * DAY });
  });

  it("keeps the deadline and its reminder as they stand when 28 days from now is no later", () => {
    // Approved now, its reminder already sent (a short authorization under a long reminder, say).
    const current = application([item("KB-01", 1000)]);
    const reminded = { ...current, application: { ...current.application, reminderAt: null } };
    const extended = applied(reminded, planExtend(reminded, ctx));
    expect(extended.application).toMatchObject({ expiresAt: current.application.expiresAt, reminderAt: null });
  });
});

describe("the lapse", () => {
  const CZK = (amount: number) => ({ amount, currency: "CZK" });
  const daysLater = (days: number) => ({ ...ctx, at: ctx.at + days * DAY });

  it("cancels an approval with nothing sent: a refund of one unit before anything went out is refused", () => {
    // The reproduction: approve 2,500 on two lines, send nothing, refund 1.
    const current = application([item("KB-01", 1500), item("MS-01", 1000)]);
    expect(refusal(planRefund(current, { totalPrice: CZK(1) }, ctx))).toEqual(["REFUND_LIMIT_EXCEEDED"]);
    const lapsed = applied(current, planExpiry(current, daysLater(28)));
    expect(lapsed.application).toMatchObject({
      state: "CANCELLED",
      stateReason: "CANCELLED_EXPIRED",
      totalAmount: 0,
      expiresAt: null,
    });
    expect(lapsed.lines.map((l) => l.state)).toEqual(["CANCELLED", "CANCELLED"]);
  });

  it("cancels the goods not sent when part went out and was refunded, keeping what went out financed", () => {
    const current = application([item("KB-01", 1500), item("MS-01", 1000)]);
    const sent = applied(current, planSend(current, { items: [{ code: "KB-01" }], sentDate: TODAY }, ctx));
    const refunded = applied(sent, planRefund(sent, { totalPrice: CZK(1500) }, ctx));
    expect(refusal(planRefund(refunded, { totalPrice: CZK(1) }, ctx))).toEqual(["REFUND_LIMIT_EXCEEDED"]);
    const lapsed = applied(refunded, planDue(refunded, daysLater(29)));
    expect(lapsed.lines.map((l) => `${l.code}:${l.state}`)).toEqual(["KB-01:SENT", "MS-01:CANCELLED"]);
    expect(lapsed.application).toMatchObject({
      state: "READY",
      stateReason: "READY_SHIPPED",
      totalAmount: 1500,
      refundedAmount: 1500,
      expiresAt: null,
    });
  });

  it("is refused by an extension once applied: AUTHORIZATION_EXPIRED, as before the sweep ran", () => {
    const current = application([item("KB-01", 1500)]);
    expect(refusal(planExtend(current, daysLater(28)))).toEqual(["AUTHORIZATION_EXPIRED"]);
    const lapsed = applied(current, planExpiry(current, daysLater(28)));
    expect(refusal(planExtend(lapsed, daysLater(29)))).toEqual(["AUTHORIZATION_EXPIRED"]);
    const cancelled = applied(current, planCancellation(current, { reason: "APPLICATION_CANCELLED_OTHER" }, ctx));
    expect(refusal(planExtend(cancelled, ctx))).toEqual(["APPLICATION_ALREADY_CANCELLED"]);
  });
});

describe("the customer's answer", () => {
  const answer = (current: ReturnType<typeof application>, action: "confirm" | "cancel") =>
    ({
      action,
      agreedNow: false,
      limits: LIMITS,
      termsDate: TODAY,
      offer: offerToken(current, TODAY),
      ...SANDBOX,
    }) as const;

  it("is taken once: after the outcome a second answer is refused", () => {
    const current = application([item("KB-01", 1000)], "PROCESSING");
    const request = answer(current, "confirm");
    const approved = applied(current, planCustomerAnswer(current, request, ctx));
    expect(refusal(planCustomerAnswer(approved, { ...request, action: "cancel" }, ctx))).toEqual([
      "APPLICATION_ALREADY_DECIDED",
    ]);
  });

  it("cancel cancels with the customer's reason", () => {
    const current = application([item("KB-01", 1000)], "PROCESSING");
    const plan = planCustomerAnswer(current, answer(current, "cancel"), ctx);
    expect(plan.ok && plan.value.application).toMatchObject({
      state: "CANCELLED",
      cancelReason: "APPLICATION_CANCELLED_BY_CUSTOMER",
    });
  });

  it("decides nothing for an offer that changed since it was shown, whatever the answer", () => {
    const shown = application([item("KB-01", 1000)], "PROCESSING");
    const raised = applied(
      shown,
      planChange(
        shown,
        { order: { totalPrice: { amount: 4000, currency: "CZK" }, items: [item("KB-01", 4000)] } },
        ctx,
      ),
    );
    for (const action of ["confirm", "cancel"] as const) {
      expect(refusal(planCustomerAnswer(raised, answer(shown, action), ctx))).toEqual(["OFFER_CHANGED"]);
    }
    // Answering the offer now shown decides it, and records that offer.
    const approved = applied(raised, planCustomerAnswer(raised, answer(raised, "confirm"), ctx));
    expect(approved.application).toMatchObject({
      state: "READY",
      approvedAmount: 4000,
      acceptedOffer: { total: 4000 },
    });
  });

  it("decides nothing on another day than the one shown (the due dates moved), nor without a token", () => {
    const current = application([item("KB-01", 1000)], "PROCESSING");
    const tomorrow = { ...answer(current, "confirm"), termsDate: "2026-11-24" };
    expect(refusal(planCustomerAnswer(current, tomorrow, ctx))).toEqual(["OFFER_CHANGED"]);
    const blind = { ...answer(current, "confirm"), offer: undefined };
    expect(refusal(planCustomerAnswer(current, blind, ctx))).toEqual(["OFFER_CHANGED"]);
  });
});

describe("the creation", () => {
  const request = () => ({
    type: "PAY_IN_THREE",
    agreementTermsAndConditions: false,
    customer: { email: "Jana@Example.com", fullName: "Jana" },
    order: {
      number: "ORD-1",
      reservationDate: "2026-11-22T10:15:00+01:00",
      variableSymbols: ["123"],
      totalPrice: { amount: 1000, currency: "CZK" },
      totalVat: [{ vatRate: 21, amount: 174, currency: "CZK" }],
      items: [
        {
          code: "KB-01",
          name: "Keyboard",
          type: "PHYSICAL",
          quantity: 1,
          totalPrice: { amount: 1000, currency: "CZK" },
          totalVat: { vatRate: 21, amount: 174, currency: "CZK" },
        },
      ],
    },
    merchantUrls: {
      approvedRedirect: "https://shop.example.com/ok",
      rejectedRedirect: "https://shop.example.com/no",
      notificationEndpoint: "https://shop.example.com/hooks",
    },
  });
  const policy = { requireHttps: true, allowedPorts: [] };

  it("waits for the customer, with its lines and its first event", () => {
    const plan = planCreate(request(), { ...ctx, urlPolicy: policy });
    expect(plan.ok && plan.value.application).toMatchObject({
      state: "PROCESSING",
      stateReason: "PROCESSING_REDIRECT_NEEDED",
      totalAmount: 1000,
      currency: "CZK",
      eventSequence: 1,
      createdAt: ctx.at,
      orderDetails: { number: "ORD-1", reservationDate: Date.parse("2026-11-22T09:15:00Z"), variableSymbols: ["123"] },
    });
    expect(plan.ok && plan.value.lines.map((l) => [l.code, l.state])).toEqual([["KB-01", "PROCESSING"]]);
    expect(plan.ok && plan.value.event).toMatchObject({
      sequence: 1,
      state: "PROCESSING",
      stateReason: "PROCESSING_REDIRECT_NEEDED",
      occurredAt: ctx.at,
    });
  });

  it("refuses amounts that do not add up and URLs we may not use, every problem named", () => {
    const bad = request();
    bad.order.totalPrice.amount = 999;
    bad.merchantUrls.notificationEndpoint = "https://127.0.0.1/hooks";
    const plan = planCreate(bad, { ...ctx, urlPolicy: policy });
    expect(plan.ok || plan.problems.map((p) => [p.code, p.attribute])).toEqual([
      ["TOTAL_PRICE_MISMATCH", "order.totalPrice.amount"],
      ["INVALID_VALUE", "merchantUrls.notificationEndpoint"],
    ]);
  });
});

describe("planPaid", () => {
  it("tells a READY application once that a payout paid it (READY_PAID, one event), and nothing else", () => {
    const ctx = context();
    const ready = application([item("KB-01", 10_000)], "READY", ctx);
    const paid = planPaid(ready, ctx);
    if (!paid.ok) throw new Error("refused");
    expect(paid.value.application).toMatchObject({ state: "READY", stateReason: "READY_PAID" });
    expect(paid.value.event).toMatchObject({ stateReason: "READY_PAID", sequence: 2 });
    expect(paid.value.entries).toBeUndefined();
    expect(refusal(planPaid(applied(ready, paid), ctx))).toEqual(["NOTHING_DUE"]);
    expect(refusal(planPaid(application([item("KB-01", 10_000)], "PROCESSING", ctx), ctx))).toEqual(["NOTHING_DUE"]);
  });
});

describe("a sandbox's advance of the clock", () => {
  it("moves a finished application's idle clock back by as much, so that the archive's age comes closer", () => {
    const current = application([item("KB-01", 1000)], "PROCESSING");
    const cancelled = applied(current, planCancellation(current, { reason: "APPLICATION_CANCELLED_OTHER" }, ctx));
    const plan = planAdvance(cancelled, { seconds: 90 * 86_400 }, ctx);
    expect(plan.ok && plan.value.application).toMatchObject({
      state: "CANCELLED",
      idleSince: cancelled.application.idleSince - 90 * DAY,
    });
    expect(plan.ok && plan.value.event).toBeUndefined();
  });

  it("leaves the idle clock to the write when something fell due (the change is now)", () => {
    const current = application([item("KB-01", 1000)], "PROCESSING");
    const plan = planAdvance(current, { seconds: 72 * 3600 }, ctx);
    expect(plan.ok && plan.value.application.stateReason).toBe("CANCELLED_EXPIRED");
    expect(plan.ok && plan.value.application.idleSince).toBeUndefined();
  });
});
