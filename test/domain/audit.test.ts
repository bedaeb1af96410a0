import { describe, expect, it } from "vitest";
import { figuresOfPlan, figuresOfRequest, outcomeOf, tokenId } from "../../src/domain/audit";
import type { Plan } from "../../src/domain/plan";

const application = { cancelReason: undefined, customCancelReason: null } as unknown as Plan["application"];

describe("an audit entry's figures", () => {
  it("of a plan: the refund's amount, currency and reason, or the cancellation's reason", () => {
    const refund = {
      id: "r",
      origin: "REFUND",
      amount: 1250,
      currency: "CZK",
      reason: "late",
      variableSymbol: null,
      createdAt: 0,
    } as const;
    expect(figuresOfPlan({ application, refund })).toEqual({ amount: 1250, currency: "CZK", reason: "late" });
    const cancelled = {
      ...application,
      cancelReason: "APPLICATION_CANCELLED_BY_CUSTOMER",
      customCancelReason: "changed mind",
    } as Plan["application"];
    expect(figuresOfPlan({ application: cancelled })).toEqual({
      reason: "APPLICATION_CANCELLED_BY_CUSTOMER: changed mind",
    });
    expect(figuresOfPlan({ application })).toEqual({});
  });

  it("of a request: its totalPrice (or its order's) and reason, and nothing of anything else", () => {
    expect(figuresOfRequest({ totalPrice: { amount: 100, currency: "EUR" }, reason: "goodwill" })).toEqual({
      amount: 100,
      currency: "EUR",
      reason: "goodwill",
    });
    expect(figuresOfRequest({ order: { totalPrice: { amount: 7, currency: "CZK" } } })).toEqual({
      amount: 7,
      currency: "CZK",
    });
    expect(figuresOfRequest({ customReason: "x".repeat(900) }).reason).toHaveLength(500);
    for (const body of [undefined, null, "text", [], { totalPrice: { amount: "1" } }]) {
      expect(figuresOfRequest(body)).toEqual({});
    }
  });
});

describe("an audit entry", () => {
  it("names a token by the first 16 hex digits of its hash, and its outcome by the status", () => {
    expect(tokenId("0123456789abcdef0123456789abcdef")).toBe("0123456789abcdef");
    expect([200, 201, 303, 400, 403, 422, 429].map(outcomeOf)).toEqual([
      "SUCCEEDED",
      "SUCCEEDED",
      "SUCCEEDED",
      "REFUSED",
      "REFUSED",
      "REFUSED",
      "REFUSED",
    ]);
  });
});
