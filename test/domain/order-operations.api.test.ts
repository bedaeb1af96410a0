import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { deriveOrderState } from "../../src/domain/application-state";
import { ledgerOf, refundableAmount } from "../../src/domain/ledger";
import { applyPlan, type Current } from "../../src/domain/plan";
import { call, json, signIn } from "../support/api";
import { application, context, EXTENDED_AGO, EXTENDED_LEFT, REVIEW_MS } from "../support/domain";
import { applicationRequest, createApplication, forceExtended, forceReview, forceState } from "../support/factories";
import { checkStep, orderContent, plan, request, resolve, scenario } from "../support/order-sequences";
import { app, type OrderView } from "../support/orders";

afterEach(() => {
  vi.useRealTimers();
});

/** What the partner sees of the order, in the terms the domain's model can be compared in. */
function seen(view: OrderView, expiresAt: string | undefined) {
  return {
    expiresAt: expiresAt === undefined ? null : Date.parse(expiresAt),
    state: view.applicationInfo.state,
    stateReason: view.applicationInfo.stateReason,
    orderState: view.state,
    financed: view.totalPrice.amount,
    refunded: view.refundedPrice.amount,
    refundable: view.refundablePrice.amount,
    lines: view.items.map((i) => `${i.code} ${i.quantity} ${i.state} ${i.totalPrice.amount}`),
  };
}

function modelled(current: Current) {
  const ledger = ledgerOf(current.application, current.lines);
  return {
    // The service writes date-times to the second.
    expiresAt: current.application.expiresAt === null ? null : Math.floor(current.application.expiresAt / 1000) * 1000,
    state: current.application.state,
    stateReason: current.application.stateReason,
    orderState: deriveOrderState(current.lines.map((l) => l.state)),
    financed: ledger.financed,
    refunded: ledger.refunded,
    refundable: refundableAmount(ledger),
    lines: current.lines.map((l) => `${l.code} ${l.quantity} ${l.state} ${l.totalPriceAmount}`),
  };
}

describe("order operations through the API", () => {
  it("answer every step of random sequences as the domain does, and store what it planned", async () => {
    const { token } = await signIn();
    await fc.assert(
      fc.asyncProperty(scenario(8), async ({ items, start, operations }) => {
        // The service's clock stands at the model's (deadlines are judged at the same instant, to the
        // second), a millisecond on per request so that ids still sort in the order they were made.
        const ctx = context();
        let tick = 0;
        const clock = () => vi.setSystemTime(ctx.at + ++tick);
        vi.useFakeTimers({ toFake: ["Date"] });
        clock();
        const body = applicationRequest();
        const created = await createApplication(token, { ...body, order: { ...body.order, ...orderContent(items) } });
        if (start === "READY") await forceState(created.id, "READY", "READY_TO_SHIP");
        if (start === "REVIEW") await forceReview(created.id, ctx.at + REVIEW_MS);
        if (start === "EXTENDED") await forceExtended(created.id, ctx.at - EXTENDED_AGO, ctx.at + EXTENDED_LEFT);
        let model: Current = application(items, start, ctx);
        for (const generated of operations) {
          const op = resolve(generated, model);
          const answer = plan(model, op, ctx);
          const { method, path, body: sent } = request(op, created.id);
          clock();
          const res = await call(method, path, { token, body: sent });
          if (answer.ok) {
            expect(res.status, `${method} ${path} ${JSON.stringify(sent)}: ${await res.clone().text()}`).toBeLessThan(
              300,
            );
            const next = applyPlan(model, answer.value);
            checkStep(model, op, answer.value, next, ctx.at);
            model = next;
          } else {
            expect([400, 422]).toContain(res.status);
            const refused = await json<{ errors: { code: string }[] }>(res);
            expect(refused.errors.map((e) => e.code)).toEqual(answer.problems.map((p) => p.code));
          }
          const read = await json<{ order: OrderView; state: string; stateReason: string; expiresAt?: string }>(
            await call("GET", app(created.id), { token }),
          );
          const view = {
            ...read.order,
            applicationInfo: { id: created.id, state: read.state, stateReason: read.stateReason },
          };
          expect(seen(view, read.expiresAt)).toEqual(modelled(model));
        }
      }),
      { numRuns: 50 },
    );
  }, 300_000);
});
