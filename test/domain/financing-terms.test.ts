import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { instalments } from "../../src/domain/financing-terms";

describe("instalments", () => {
  it("PAY_IN_THREE of 1000 is 334, 333, 333 due today, +30 and +60 days", () => {
    expect(instalments("PAY_IN_THREE", 1000, "2025-03-10")).toEqual([
      { number: 1, amount: 334, dueDate: "2025-03-10" },
      { number: 2, amount: 333, dueDate: "2025-04-09" },
      { number: 3, amount: 333, dueDate: "2025-05-09" },
    ]);
  });

  it("PAY_IN_THREE of 1001 is 334, 334, 333", () => {
    expect(instalments("PAY_IN_THREE", 1001, "2025-03-10").map((i) => i.amount)).toEqual([334, 334, 333]);
  });

  it("PAY_IN_THREE of 2 is 1, 1, 0", () => {
    expect(instalments("PAY_IN_THREE", 2, "2025-03-10").map((i) => i.amount)).toEqual([1, 1, 0]);
  });

  it("PAY_IN_THREE of 999 is three equal instalments", () => {
    expect(instalments("PAY_IN_THREE", 999, "2025-03-10").map((i) => i.amount)).toEqual([333, 333, 333]);
  });

  it("DEFERRED_PAYMENT is the whole total due in 30 days", () => {
    expect(instalments("DEFERRED_PAYMENT", 12_345, "2025-03-10")).toEqual([
      { number: 1, amount: 12_345, dueDate: "2025-04-09" },
    ]);
  });

  it("an unknown type has no instalments", () => {
    expect(instalments("LEASING", 1000, "2025-03-10")).toEqual([]);
  });

  it("due dates cross month ends", () => {
    expect(instalments("PAY_IN_THREE", 3, "2025-01-31").map((i) => i.dueDate)).toEqual([
      "2025-01-31",
      "2025-03-02",
      "2025-04-01",
    ]);
  });

  it("due dates cross the year end", () => {
    expect(instalments("PAY_IN_THREE", 3, "2025-12-15").map((i) => i.dueDate)).toEqual([
      "2025-12-15",
      "2026-01-14",
      "2026-02-13",
    ]);
    expect(instalments("DEFERRED_PAYMENT", 3, "2025-12-31")[0]?.dueDate).toBe("2026-01-30");
  });

  it("due dates count 29 February in a leap year and not in a common year", () => {
    expect(instalments("PAY_IN_THREE", 3, "2024-02-01").map((i) => i.dueDate)).toEqual([
      "2024-02-01",
      "2024-03-02",
      "2024-04-01",
    ]);
    expect(instalments("PAY_IN_THREE", 3, "2023-02-01").map((i) => i.dueDate)).toEqual([
      "2023-02-01",
      "2023-03-03",
      "2023-04-02",
    ]);
    expect(instalments("DEFERRED_PAYMENT", 3, "2024-02-29")[0]?.dueDate).toBe("2024-03-30");
  });

  it("a date that is not a calendar date is refused", () => {
    expect(() => instalments("PAY_IN_THREE", 3, "2023-02-29")).toThrow(RangeError);
    expect(() => instalments("PAY_IN_THREE", 3, "2025-13-01")).toThrow(RangeError);
    expect(() => instalments("PAY_IN_THREE", 3, "2025-3-1")).toThrow(RangeError);
    expect(() => instalments("DEFERRED_PAYMENT", 3, "2025-03-10T00:00:00Z")).toThrow(RangeError);
  });

  it("PAY_IN_THREE always sums to the total, first instalments larger by at most one", () => {
    const day = fc
      .date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000_000 }), day, (total, today) => {
        const plan = instalments("PAY_IN_THREE", total, today);
        const amounts = plan.map((i) => i.amount);
        expect(amounts.reduce((a, b) => a + b, 0)).toBe(total);
        expect(amounts).toEqual([...amounts].sort((a, b) => b - a));
        expect(amounts[0]! - amounts[2]!).toBeLessThanOrEqual(1);
        const days = plan.map((i) => (Date.parse(i.dueDate) - Date.parse(today)) / 86_400_000);
        expect(days).toEqual([0, 30, 60]);
      }),
      { numRuns: 2000 },
    );
  });
});
