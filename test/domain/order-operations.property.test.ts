import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyPlan, type Current } from "../../src/domain/plan";
import { application, context } from "../support/domain";
import { checkStep, plan, scenario } from "../support/order-sequences";

const DAY = 86_400_000;

describe("order operations over random sequences, with time passing", () => {
  it("keep every invariant after each accepted step, and a refused step changes nothing", () => {
    let accepted = 0;
    let steps = 0;
    const refusals = new Set<string>();
    const kinds = new Set<string>();
    fc.assert(
      fc.property(scenario(14, true), ({ items, start, operations }) => {
        // One clock for the whole sequence: `wait` moves it, every plan judges deadlines at it.
        const ctx = context();
        let current: Current = application(items, start, ctx);
        for (const op of operations) {
          if (op.kind === "wait") {
            ctx.at += Math.round(op.days * DAY);
            continue;
          }
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
          kinds.add(`${op.kind} ${result.value.event?.type ?? ""} ${result.value.application.stateReason}`);
          const next = applyPlan(current, result.value);
          checkStep(current, op, result.value, next, ctx.at);
          current = next;
        }
      }),
      { numRuns: 2000 },
    );
    // The sequences must reach far: every kind of refusal, a good share carried out, and every way
    // time acts on an application (lapses of each kind, reminders, settled reviews).
    expect(accepted / steps).toBeGreaterThan(0.15);
    expect([...refusals].sort()).toEqual(
      expect.arrayContaining([
        "APPLICATION_ALREADY_CANCELLED",
        "APPLICATION_NOT_READY",
        "AUTHORIZATION_EXPIRED",
        "DISCOUNT_NOT_SEPARABLE",
        "EXTENSION_LIMIT_REACHED",
        "INVALID_QUANTITY",
        "ITEM_NOT_FOUND",
        "NOTHING_DUE",
        "NOTHING_TO_EXTEND",
        "NOTHING_TO_RETURN",
        "ORDER_ALREADY_SENT",
        "REFUND_LIMIT_EXCEEDED",
        "TOTAL_PRICE_LIMIT_EXCEEDED",
      ]),
    );
    const reached = [...kinds].join("\n");
    expect(reached).toMatch(/sweep APPLICATION_STATE_CHANGED CANCELLED_EXPIRED/);
    expect(reached).toMatch(/(sweep|advance) APPLICATION_STATE_CHANGED READY_(SHIPPED|DELIVERED)/);
    expect(reached).toMatch(/(sweep|advance) AUTHORIZATION_EXPIRING READY_/);
    expect(reached).toMatch(/(sweep|advance) APPLICATION_STATE_CHANGED READY_TO_SHIP/);
    expect(reached).toMatch(/extend {2}READY_/);
  });
});
