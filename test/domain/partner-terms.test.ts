import { describe, expect, it } from "vitest";
import { DEFAULT_TERMS, planTermsChange } from "../../src/domain/partner-terms";

describe("partner terms", () => {
  it("default to settling on sending, 250 and 350 basis points, 21 % VAT on the fee", () => {
    expect(DEFAULT_TERMS).toEqual({
      settlesOn: "SENT",
      feeBasisPoints: { DEFERRED_PAYMENT: 250, PAY_IN_THREE: 350 },
      feeVatRate: 21,
    });
  });

  it("change what the operator gives and keep the rest", () => {
    const changed = planTermsChange(DEFAULT_TERMS, { settlesOn: "DELIVERED", feeBasisPoints: { PAY_IN_THREE: 0 } });
    expect(changed).toEqual({
      ok: true,
      value: { settlesOn: "DELIVERED", feeBasisPoints: { DEFERRED_PAYMENT: 250, PAY_IN_THREE: 0 }, feeVatRate: 21 },
    });
    const edges = planTermsChange(DEFAULT_TERMS, {
      feeBasisPoints: { DEFERRED_PAYMENT: 10_000, PAY_IN_THREE: undefined },
      feeVatRate: 100,
    });
    expect(edges.ok && edges.value).toMatchObject({
      feeBasisPoints: { DEFERRED_PAYMENT: 10_000, PAY_IN_THREE: 350 },
      feeVatRate: 100,
    });
  });

  it("refuse every fee that is not whole basis points from 0 to 10 000, and a rate not a whole percent to 100", () => {
    const result = planTermsChange(DEFAULT_TERMS, {
      settlesOn: "SHIPPED" as "SENT",
      feeBasisPoints: { DEFERRED_PAYMENT: -1, PAY_IN_THREE: 2.5 },
      feeVatRate: 101,
    });
    expect(result.ok || result.problems.map((p) => [p.code, p.attribute])).toEqual([
      ["INVALID_VALUE", "settlesOn"],
      ["INVALID_VALUE", "feeBasisPoints.DEFERRED_PAYMENT"],
      ["INVALID_VALUE", "feeBasisPoints.PAY_IN_THREE"],
      ["INVALID_VALUE", "feeVatRate"],
    ]);
    const tooHigh = planTermsChange(DEFAULT_TERMS, { feeBasisPoints: { DEFERRED_PAYMENT: 10_001 }, feeVatRate: 20.5 });
    expect(tooHigh.ok || tooHigh.problems.map((p) => p.attribute)).toEqual([
      "feeBasisPoints.DEFERRED_PAYMENT",
      "feeVatRate",
    ]);
  });
});
