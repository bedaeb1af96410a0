import { describe, expect, it } from "vitest";
import { feeOf, feeVatOf, shareRounded } from "../../src/domain/settlement-fees";

describe("settlement fees", () => {
  it("round a fee half away from zero", () => {
    expect(feeOf(9_900, 250)).toBe(248); // 247.5
    expect(feeOf(9_899, 250)).toBe(247); // 247.475
    expect(feeOf(10_020, 250)).toBe(251); // 250.5
    expect(feeVatOf(6_450, 21)).toBe(1_355); // 1354.5
    expect(feeVatOf(62_475, 21)).toBe(13_120); // 13119.75
  });

  it("give a negative sale (a discount, a reversal) exactly the negative fee, so the two cancel out", () => {
    expect(feeOf(-9_900, 250)).toBe(-248);
    expect(feeOf(-10_020, 250)).toBe(-251);
    expect(feeVatOf(-6_450, 21)).toBe(-1_355);
    for (const amount of [1, 2, 3, 199, 200, 201, 12_345, 2 ** 40 + 7]) {
      expect(feeOf(-amount, 350) + feeOf(amount, 350)).toBe(0);
    }
  });

  it("give zero, never -0, for a zero or tiny amount", () => {
    expect(Object.is(feeOf(0, 250), 0)).toBe(true);
    expect(Object.is(feeOf(-1, 250), 0)).toBe(true);
    expect(Object.is(feeVatOf(-2, 21), 0)).toBe(true);
    expect(feeOf(1_000_000, 0)).toBe(0);
  });

  it("stay exact where amount × rate passes 2^53", () => {
    // 9 007 199 254 740 991 × 9 999 / 10 000 = 9 006 298 534 815 516.9009…
    expect(shareRounded(Number.MAX_SAFE_INTEGER, 9_999, 10_000)).toBe(Number(9_006_298_534_815_517n));
    expect(feeOf(Number.MAX_SAFE_INTEGER, 10_000)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it("refuse what is not whole", () => {
    expect(() => feeOf(10.5, 250)).toThrow(RangeError);
    expect(() => feeOf(100, 2.5)).toThrow(RangeError);
    expect(() => shareRounded(100, 1, 0)).toThrow(RangeError);
  });
});
