import { describe, expect, it } from "vitest";
import { type DecisionInput, type DecisionLimits, decide } from "../../src/domain/decision";

const LIMITS: DecisionLimits = {
  PAY_IN_THREE: { EUR: 150_000, CZK: 3_000_000 },
  DEFERRED_PAYMENT: { EUR: 50_000 },
};

function input(fields: Partial<DecisionInput> = {}): DecisionInput {
  return {
    type: "PAY_IN_THREE",
    totalAmount: 10_000,
    currency: "EUR",
    customerEmail: "jane.doe@example.com",
    agreementTermsAndConditions: true,
    ...fields,
  };
}

describe("decide", () => {
  it("an agreed amount within the limit is approved", () => {
    expect(decide(input(), LIMITS)).toEqual({ outcome: "APPROVED", reasons: ["WITHIN_LIMIT"] });
  });

  it("an amount exactly at the limit is approved", () => {
    expect(decide(input({ totalAmount: 150_000 }), LIMITS)).toEqual({ outcome: "APPROVED", reasons: ["WITHIN_LIMIT"] });
  });

  it("an amount one unit over the limit is rejected with AMOUNT_OVER_LIMIT", () => {
    expect(decide(input({ totalAmount: 150_001 }), LIMITS)).toEqual({
      outcome: "REJECTED",
      reasons: ["AMOUNT_OVER_LIMIT"],
    });
  });

  it("the limit is the one of the type and currency", () => {
    expect(decide(input({ type: "DEFERRED_PAYMENT", totalAmount: 60_000 }), LIMITS).reasons).toEqual([
      "AMOUNT_OVER_LIMIT",
    ]);
    expect(decide(input({ currency: "CZK", totalAmount: 2_000_000 }), LIMITS).outcome).toBe("APPROVED");
  });

  it("no limit for the currency is rejected with NO_LIMIT_FOR_CURRENCY", () => {
    expect(decide(input({ type: "DEFERRED_PAYMENT", currency: "CZK" }), LIMITS)).toEqual({
      outcome: "REJECTED",
      reasons: ["NO_LIMIT_FOR_CURRENCY"],
    });
  });

  it("no limit for the type is rejected with NO_LIMIT_FOR_CURRENCY", () => {
    expect(decide(input({ type: "LEASING" }), LIMITS).reasons).toEqual(["NO_LIMIT_FOR_CURRENCY"]);
  });

  it("a type or currency named like an Object property finds no limit", () => {
    expect(decide(input({ type: "constructor" }), LIMITS).reasons).toEqual(["NO_LIMIT_FOR_CURRENCY"]);
    expect(decide(input({ currency: "toString" }), LIMITS).reasons).toEqual(["NO_LIMIT_FOR_CURRENCY"]);
  });

  it("a missing agreement is rejected with AGREEMENT_MISSING", () => {
    expect(decide(input({ agreementTermsAndConditions: false }), LIMITS)).toEqual({
      outcome: "REJECTED",
      reasons: ["AGREEMENT_MISSING", "WITHIN_LIMIT"],
    });
  });

  it("a missing agreement over the limit reports both reasons", () => {
    expect(decide(input({ agreementTermsAndConditions: false, totalAmount: 999_999 }), LIMITS)).toEqual({
      outcome: "REJECTED",
      reasons: ["AGREEMENT_MISSING", "AMOUNT_OVER_LIMIT"],
    });
  });

  it("+reject is rejected with SANDBOX_REJECT even within the limit", () => {
    expect(decide(input({ customerEmail: "jane+reject@example.com" }), LIMITS)).toEqual({
      outcome: "REJECTED",
      reasons: ["SANDBOX_REJECT", "WITHIN_LIMIT"],
    });
  });

  it("+reject wins and every other reason that applied is kept", () => {
    expect(
      decide(
        input({ customerEmail: "jane+reject@example.com", agreementTermsAndConditions: false, totalAmount: 999_999 }),
        LIMITS,
      ),
    ).toEqual({ outcome: "REJECTED", reasons: ["SANDBOX_REJECT", "AGREEMENT_MISSING", "AMOUNT_OVER_LIMIT"] });
  });

  it("+approve is approved over the limit and without a limit for the currency", () => {
    expect(decide(input({ customerEmail: "jane+approve@example.com", totalAmount: 999_999 }), LIMITS)).toEqual({
      outcome: "APPROVED",
      reasons: ["SANDBOX_APPROVE"],
    });
    expect(decide(input({ customerEmail: "jane+approve@example.com", currency: "USD" }), LIMITS)).toEqual({
      outcome: "APPROVED",
      reasons: ["SANDBOX_APPROVE"],
    });
  });

  it("+approve does not waive the agreement", () => {
    expect(
      decide(input({ customerEmail: "jane+approve@example.com", agreementTermsAndConditions: false }), LIMITS),
    ).toEqual({ outcome: "REJECTED", reasons: ["AGREEMENT_MISSING", "SANDBOX_APPROVE"] });
  });

  it("the sandbox suffixes are matched case-insensitively", () => {
    expect(decide(input({ customerEmail: "Jane+REJECT@Example.com" }), LIMITS).outcome).toBe("REJECTED");
    expect(decide(input({ customerEmail: "JANE+Approve@example.com", totalAmount: 999_999 }), LIMITS).outcome).toBe(
      "APPROVED",
    );
  });

  it("the suffix counts only at the end of the local part", () => {
    expect(decide(input({ customerEmail: "jane+reject.me@example.com" }), LIMITS).outcome).toBe("APPROVED");
    expect(decide(input({ customerEmail: "jane@shop+reject.example.com" }), LIMITS).outcome).toBe("APPROVED");
    expect(decide(input({ customerEmail: "jane+approve-not@example.com", totalAmount: 999_999 }), LIMITS).outcome).toBe(
      "REJECTED",
    );
  });
});
