import { describe, expect, it } from "vitest";
import { type DecisionInput, type DecisionLimits, decide, eligibility } from "../../src/domain/decision";
import { ok } from "../../src/domain/result";

const LIMITS: DecisionLimits = {
  PAY_IN_THREE: { EUR: 150_000, CZK: 3_000_000 },
  DEFERRED_PAYMENT: { EUR: 50_000 },
};

/** The e-mail scenarios are taken only in a sandbox; most of these tests run in one. */
const SANDBOX = true;

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
    expect(decide(input(), LIMITS, SANDBOX)).toEqual({ outcome: "APPROVED", reasons: ["WITHIN_LIMIT"] });
  });

  it("an amount exactly at the limit is approved", () => {
    expect(decide(input({ totalAmount: 150_000 }), LIMITS, SANDBOX)).toEqual({
      outcome: "APPROVED",
      reasons: ["WITHIN_LIMIT"],
    });
  });

  it("an amount one unit over the limit is rejected with AMOUNT_OVER_LIMIT", () => {
    expect(decide(input({ totalAmount: 150_001 }), LIMITS, SANDBOX)).toEqual({
      outcome: "REJECTED",
      reasons: ["AMOUNT_OVER_LIMIT"],
    });
  });

  it("the limit is the one of the type and currency", () => {
    expect(decide(input({ type: "DEFERRED_PAYMENT", totalAmount: 60_000 }), LIMITS, SANDBOX).reasons).toEqual([
      "AMOUNT_OVER_LIMIT",
    ]);
    expect(decide(input({ currency: "CZK", totalAmount: 2_000_000 }), LIMITS, SANDBOX).outcome).toBe("APPROVED");
  });

  it("no limit for the currency is rejected with NO_LIMIT_FOR_CURRENCY", () => {
    expect(decide(input({ type: "DEFERRED_PAYMENT", currency: "CZK" }), LIMITS, SANDBOX)).toEqual({
      outcome: "REJECTED",
      reasons: ["NO_LIMIT_FOR_CURRENCY"],
    });
  });

  it("no limit for the type is rejected with NO_LIMIT_FOR_CURRENCY", () => {
    expect(decide(input({ type: "LEASING" }), LIMITS, SANDBOX).reasons).toEqual(["NO_LIMIT_FOR_CURRENCY"]);
  });

  it("a type or currency named like an Object property finds no limit", () => {
    expect(decide(input({ type: "constructor" }), LIMITS, SANDBOX).reasons).toEqual(["NO_LIMIT_FOR_CURRENCY"]);
    expect(decide(input({ currency: "toString" }), LIMITS, SANDBOX).reasons).toEqual(["NO_LIMIT_FOR_CURRENCY"]);
  });

  it("a missing agreement is rejected with AGREEMENT_MISSING", () => {
    expect(decide(input({ agreementTermsAndConditions: false }), LIMITS, SANDBOX)).toEqual({
      outcome: "REJECTED",
      reasons: ["AGREEMENT_MISSING", "WITHIN_LIMIT"],
    });
  });

  it("a missing agreement over the limit reports both reasons", () => {
    expect(decide(input({ agreementTermsAndConditions: false, totalAmount: 999_999 }), LIMITS, SANDBOX)).toEqual({
      outcome: "REJECTED",
      reasons: ["AGREEMENT_MISSING", "AMOUNT_OVER_LIMIT"],
    });
  });

  it("+reject is rejected with SANDBOX_REJECT even within the limit", () => {
    expect(decide(input({ customerEmail: "jane+reject@example.com" }), LIMITS, SANDBOX)).toEqual({
      outcome: "REJECTED",
      reasons: ["SANDBOX_REJECT", "WITHIN_LIMIT"],
    });
  });

  it("+reject wins and every other reason that applied is kept", () => {
    expect(
      decide(
        input({ customerEmail: "jane+reject@example.com", agreementTermsAndConditions: false, totalAmount: 999_999 }),
        LIMITS,
        SANDBOX,
      ),
    ).toEqual({ outcome: "REJECTED", reasons: ["SANDBOX_REJECT", "AGREEMENT_MISSING", "AMOUNT_OVER_LIMIT"] });
  });

  it("+approve is approved over the limit and without a limit for the currency", () => {
    expect(decide(input({ customerEmail: "jane+approve@example.com", totalAmount: 999_999 }), LIMITS, SANDBOX)).toEqual(
      {
        outcome: "APPROVED",
        reasons: ["SANDBOX_APPROVE"],
      },
    );
    expect(decide(input({ customerEmail: "jane+approve@example.com", currency: "USD" }), LIMITS, SANDBOX)).toEqual({
      outcome: "APPROVED",
      reasons: ["SANDBOX_APPROVE"],
    });
  });

  it("+approve does not waive the agreement", () => {
    expect(
      decide(input({ customerEmail: "jane+approve@example.com", agreementTermsAndConditions: false }), LIMITS, SANDBOX),
    ).toEqual({ outcome: "REJECTED", reasons: ["AGREEMENT_MISSING", "SANDBOX_APPROVE"] });
  });

  it("the sandbox suffixes are matched case-insensitively", () => {
    expect(decide(input({ customerEmail: "Jane+REJECT@Example.com" }), LIMITS, SANDBOX).outcome).toBe("REJECTED");
    expect(
      decide(input({ customerEmail: "JANE+Approve@example.com", totalAmount: 999_999 }), LIMITS, SANDBOX).outcome,
    ).toBe("APPROVED");
  });

  it("the suffix counts only at the end of the local part", () => {
    expect(decide(input({ customerEmail: "jane+reject.me@example.com" }), LIMITS, SANDBOX).outcome).toBe("APPROVED");
    expect(decide(input({ customerEmail: "jane@shop+reject.example.com" }), LIMITS, SANDBOX).outcome).toBe("APPROVED");
    expect(
      decide(input({ customerEmail: "jane+approve-not@example.com", totalAmount: 999_999 }), LIMITS, SANDBOX).outcome,
    ).toBe("REJECTED");
  });

  it("+review and +review-reject go to a manual review that settles to an approval or a rejection", () => {
    expect(decide(input({ customerEmail: "jane+review@example.com" }), LIMITS, SANDBOX)).toEqual({
      outcome: "REVIEW",
      review: "APPROVE",
      reasons: ["WITHIN_LIMIT", "SANDBOX_REVIEW"],
    });
    expect(decide(input({ customerEmail: "jane+review-reject@example.com" }), LIMITS, SANDBOX)).toEqual({
      outcome: "REVIEW",
      review: "REJECT",
      reasons: ["WITHIN_LIMIT", "SANDBOX_REVIEW_REJECT"],
    });
    // A review is no way around the rules: over the limit it is a plain rejection.
    expect(
      decide(input({ customerEmail: "jane+review@example.com", totalAmount: 999_999 }), LIMITS, SANDBOX).outcome,
    ).toBe("REJECTED");
  });

  it("outside a sandbox the suffixes mean nothing: +approve above the limit is rejected like anyone", () => {
    for (const email of ["jane+approve@example.com", "jane+reject@example.com", "jane+review@example.com"]) {
      expect(decide(input({ customerEmail: email, totalAmount: 999_999 }), LIMITS, false)).toEqual({
        outcome: "REJECTED",
        reasons: ["AMOUNT_OVER_LIMIT"],
      });
      expect(decide(input({ customerEmail: email }), LIMITS, false)).toEqual({
        outcome: "APPROVED",
        reasons: ["WITHIN_LIMIT"],
      });
    }
  });
});

describe("eligibility", () => {
  it("answers each type's offer from the same rules: eligible within the limit, the limit as maxAmount", () => {
    expect(
      eligibility({ amount: 100_000, currency: "EUR", types: ["PAY_IN_THREE", "DEFERRED_PAYMENT"] }, LIMITS, false),
    ).toEqual(
      ok([
        { type: "PAY_IN_THREE", eligible: true, maxAmount: 150_000 },
        { type: "DEFERRED_PAYMENT", eligible: false, maxAmount: 50_000, reasons: ["AMOUNT_OVER_LIMIT"] },
      ]),
    );
    expect(eligibility({ amount: 100, currency: "CZK", types: ["DEFERRED_PAYMENT"] }, LIMITS, false)).toEqual(
      ok([{ type: "DEFERRED_PAYMENT", eligible: false, reasons: ["NO_LIMIT_FOR_CURRENCY"] }]),
    );
  });

  it("refuses a total that create refuses (NON_POSITIVE_TOTAL), instead of calling it eligible", () => {
    for (const amount of [0, -100]) {
      expect(eligibility({ amount, currency: "EUR", types: ["PAY_IN_THREE"] }, LIMITS, false)).toEqual({
        ok: false,
        problems: [
          { code: "NON_POSITIVE_TOTAL", message: "The order total must be positive.", attribute: "totalPrice.amount" },
        ],
      });
    }
  });

  it("takes the sandbox's e-mail scenarios only in a sandbox", () => {
    const request = { amount: 100, currency: "EUR", types: ["PAY_IN_THREE"], customerEmail: "jane+reject@example.com" };
    expect(eligibility(request, LIMITS, true)).toEqual(
      ok([{ type: "PAY_IN_THREE", eligible: false, maxAmount: 150_000, reasons: ["SANDBOX_REJECT"] }]),
    );
    expect(eligibility(request, LIMITS, false)).toMatchObject(ok([{ eligible: true }]));
  });
});
