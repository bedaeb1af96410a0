import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyPlan, type Current } from "../../src/domain/plan";
import { application, context } from "../support/domain";
import { checkStep, plan, scenario } from "../support/order-sequences";

describe("order operations over random sequences", () => {
  it("keep every invariant after each accepted step, and a refused step changes nothing", () => {
    let accepted = 0;
    let steps = 0;
    const refusals = new Set<string>();
    fc.assert(
      fc.property(scenario(12), ({ items, approved, operations }) => {
        const ctx = context();
        let current: Current = application(items, approved ? "READY" : "PROCESSING", ctx);
        for (const op of operations) {
          const before = structuredClone(current);
          const result = plan(current, op, ctx);
          steps++;
          // Plans are pure: whatever they answer, the application they were given is untouched.
          expect(current).toEqual(before);
          if (!result.ok) {
            expect(result.problems.length).toBeGreaterThan(0);
            for (const p of result.problems) refusals.add(p.code);
            continue;
          }
          accepted++;
          const next = applyPlan(current, result.value);
          checkStep(current, op, result.value, next);
          current = next;
        }
      }),
      { numRuns: 2000 },
    );
    // The sequences must reach far: every kind of refusal, and a good share carried out (about 20 %:
    // once an application is cancelled, the rest of its sequence is refused).
    expect(accepted / steps).toBeGreaterThan(0.15);
    expect([...refusals].sort()).toEqual(
      expect.arrayContaining([
        "APPLICATION_ALREADY_CANCELLED",
        "APPLICATION_NOT_READY",
        "DISCOUNT_NOT_SEPARABLE",
        "INVALID_QUANTITY",
        "ITEM_NOT_FOUND",
        "NOTHING_TO_RETURN",
        "ORDER_ALREADY_SENT",
        "REFUND_LIMIT_EXCEEDED",
        "TOTAL_PRICE_LIMIT_EXCEEDED",
      ]),
    );
  });
});
