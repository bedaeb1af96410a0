import { describe, expect, it } from "vitest";
import { isPayoutReference, newPayoutReference } from "../../src/domain/payout-reference";

/** A source that answers the given 32-bit values in turn. */
const source = (...values: number[]) => {
  let i = 0;
  return () => values[i++]!;
};

/** The Luhn sum of a whole number, check digit included (a valid one is a multiple of 10), as ISO/IEC 7812 states it. */
function luhnSum(digits: string): number {
  return [...digits].reverse().reduce((sum, d, i) => {
    const n = Number(d) * (i % 2 === 1 ? 2 : 1);
    return sum + Math.floor(n / 10) + (n % 10);
  }, 0);
}

describe("payout references", () => {
  it("are 9 digits not starting with 0 and a Luhn check digit", () => {
    // The 1 of 100000000 is doubled (every other digit from the right of the body): 2, and 2 + 8 = 10.
    expect(newPayoutReference(source(0))).toBe("1000000008");
    expect(newPayoutReference(source(899_999_999))).toBe("9999999999");
    for (const value of [1, 7, 123_456_789, 3_599_999_999]) {
      const reference = newPayoutReference(source(value));
      expect(reference).toMatch(/^[1-9]\d{9}$/);
      expect(luhnSum(reference) % 10).toBe(0);
    }
  });

  it("draw again rather than favour low numbers", () => {
    // Below 4 × 900 000 000 every body is as likely; from there the next value is drawn.
    expect(newPayoutReference(source(3_600_000_000, 2 ** 32 - 1, 5))).toBe(newPayoutReference(source(5)));
    expect(newPayoutReference(source(3_599_999_999))).toBe("9999999999");
  });

  it("are recognised, and a mistyped one is not", () => {
    const reference = newPayoutReference(source(123_456_789));
    expect(isPayoutReference(reference)).toBe(true);
    const oneWrong = reference.slice(0, 4) + ((Number(reference[4]) + 1) % 10) + reference.slice(5);
    const swapped = reference.slice(0, 2) + reference[3] + reference[2] + reference.slice(4);
    expect(isPayoutReference(oneWrong)).toBe(false);
    if (reference[2] !== reference[3]) expect(isPayoutReference(swapped)).toBe(false);
    for (const other of ["0123456789", "123456789", "12345678901", "12345678x0", ""]) {
      expect(isPayoutReference(other)).toBe(false);
    }
  });
});
