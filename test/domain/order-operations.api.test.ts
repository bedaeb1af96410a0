import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deriveOrderState } from "../../src/domain/application-state";
import { ledgerOf, refundableAmount } from "../../src/domain/ledger";
import { applyPlan, type Current } from "../../src/domain/plan";
import { call, json, signIn } from "../support/api";
import { application, context } from "../support/domain";
import { applicationRequest, createApplication, forceState } from "../support/factories";
import { checkStep, orderContent, plan, request, resolve, scenario } from "../support/order-sequences";
import { app, type OrderView, order } from "../support/orders";

/** What the partner sees of the order, in the terms the domain's model can be compared in. */
function seen(view: OrderView) {
  return {
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
      fc.asyncProperty(scenario(8), async ({ items, approved, operations }) => {
        const body = applicationRequest();
        const created = await createApplication(token, { ...body, order: { ...body.order, ...orderContent(items) } });
        if (approved) await forceState(created.id, "READY", "READY_TO_SHIP");
        const ctx = context();
        let model: Current = application(items, approved ? "READY" : "PROCESSING", ctx);
        for (const generated of operations) {
          const op = resolve(generated, model);
          const answer = plan(model, op, ctx);
          const { method, path, body: sent } = request(op);
          const res = await call(method, `${app(created.id)}${path}`, { token, body: sent });
          if (answer.ok) {
            expect(res.status, `${method} ${path} ${JSON.stringify(sent)}: ${await res.clone().text()}`).toBeLessThan(
              300,
            );
            const next = applyPlan(model, answer.value);
            checkStep(model, op, answer.value, next);
            model = next;
          } else {
            expect([400, 422]).toContain(res.status);
            const refused = await json<{ errors: { code: string }[] }>(res);
            expect(refused.errors.map((e) => e.code)).toEqual(answer.problems.map((p) => p.code));
          }
          const view = await order(token, created.id);
          expect(seen(view)).toEqual(modelled(model));
        }
      }),
      { numRuns: 50 },
    );
  }, 300_000);
});
