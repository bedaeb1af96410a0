import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { call, json, signIn } from "../../support/api";
import { app, approved, type OrderView, order } from "../../support/orders";

/**
 * Model-based test: random sequences of change / cancel items / send / deliver / return / refund
 * against the real API. After every step the order must hold its invariants; no step may answer 500.
 */

const CODES = ["KB-01", "BK-7", "SHIP"] as const;

interface Model {
  /** Units per item code, as created (or as last changed): operations may split lines, never lose units. */
  quantities: Record<string, number>;
  /** Refunded so far: exact after refunds and amount-only returns, never decreasing. */
  refunded: number;
  /** Operations run and accepted, to show the run did more than collect refusals. */
  run: number;
  accepted: number;
}

interface Real {
  token: string;
  id: string;
}

const PROGRESS: Record<string, number> = { PROCESSING: 0, SENT: 1, DELIVERED: 2 };

/** The contract's rule for the order state, written again here as the oracle. */
function expectedOrderState(states: string[]): string {
  const live = states.filter((s) => s !== "CANCELLED");
  if (live.length === 0) return "CANCELLED";
  const open = live.filter((s) => s !== "RETURNED");
  if (open.length === 0) return "RETURNED";
  return open.reduce((a, b) => (PROGRESS[b]! < PROGRESS[a]! ? b : a));
}

function checkInvariants(model: Model, current: OrderView) {
  const live = current.items.filter((i) => i.state !== "CANCELLED");
  expect(current.refundedPrice.amount).toBe(model.refunded);
  expect(current.refundedPrice.amount + current.refundablePrice.amount).toBe(current.totalPrice.amount);
  expect(current.refundablePrice.amount).toBeGreaterThanOrEqual(0);
  expect(current.totalPrice.amount).toBe(live.reduce((sum, i) => sum + i.totalPrice.amount, 0));
  const units: Record<string, number> = {};
  for (const item of current.items) units[item.code] = (units[item.code] ?? 0) + item.quantity;
  expect(units).toEqual(model.quantities);
  expect(current.state).toBe(expectedOrderState(current.items.map((i) => i.state)));
  const { state, stateReason } = current.applicationInfo;
  const wentOut = current.items.some((i) => ["SENT", "DELIVERED", "RETURNED"].includes(i.state));
  if (state === "READY") expect(stateReason === "READY_TO_SHIP").toBe(!wentOut);
}

async function step(real: Real, method: string, path: string, body?: unknown): Promise<number> {
  const res = await call(method, `${app(real.id)}${path}`, { token: real.token, ...(body ? { body } : {}) });
  expect([200, 201, 400, 422]).toContain(res.status);
  if (res.status >= 400) expect(await json(res)).toHaveProperty("requestId");
  return res.status;
}

const selector = fc.record(
  { code: fc.constantFrom(...CODES), quantity: fc.integer({ min: 1, max: 3 }) },
  { requiredKeys: ["code"] },
);
const selection = fc.option(fc.array(selector, { minLength: 1, maxLength: 2 }), { nil: undefined });

class Operation implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly label: string,
    readonly method: string,
    readonly path: string,
    readonly body: unknown,
    readonly effect?: (model: Model, accepted: boolean, current: OrderView) => void,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const accepted = (await step(real, this.method, this.path, this.body)) < 300;
    const current = await order(real.token, real.id);
    model.run++;
    if (accepted) model.accepted++;
    this.effect?.(model, accepted, current);
    checkInvariants(model, current);
  }
  toString = () => `${this.label} ${JSON.stringify(this.body ?? {})}`;
}

const newContent = {
  totalPrice: { amount: 90000, currency: "CZK" },
  totalVat: [{ vatRate: 21, amount: 15620, currency: "CZK" }],
  items: [
    {
      code: "KB-01",
      name: "Mechanical keyboard",
      quantity: 3,
      totalPrice: { amount: 90000, currency: "CZK" },
      totalVat: { vatRate: 21, amount: 15620, currency: "CZK" },
    },
  ],
};

const commands = [
  selection.map((items) => new Operation("send", "PUT", "/order/send", items ? { items } : undefined)),
  selection.map((items) => new Operation("deliver", "PUT", "/order/deliver", items ? { items } : undefined)),
  selection.map((items) => new Operation("cancel items", "PUT", "/order/cancel", items ? { items } : undefined)),
  selection.map(
    (items) =>
      new Operation("return", "PUT", "/order/return", items ? { items } : undefined, (model, accepted, current) => {
        // The refund of a return is the returned items' price: it can only add.
        if (accepted) expect(current.refundedPrice.amount).toBeGreaterThanOrEqual(model.refunded);
        model.refunded = current.refundedPrice.amount;
      }),
  ),
  fc.integer({ min: 1, max: 60000 }).map(
    (amount) =>
      new Operation(
        "amount-only return",
        "PUT",
        "/order/return",
        { items: [], totalPrice: { amount, currency: "CZK" } },
        (model, accepted) => {
          if (accepted) model.refunded += amount;
        },
      ),
  ),
  fc.integer({ min: 1, max: 80000 }).map(
    (amount) =>
      new Operation("refund", "POST", "/refunds", { totalPrice: { amount, currency: "CZK" } }, (model, accepted) => {
        if (accepted) model.refunded += amount;
      }),
  ),
  fc.constant(
    new Operation("change order", "PUT", "/order", { order: newContent }, (model, accepted) => {
      if (accepted) model.quantities = { "KB-01": 3 };
    }),
  ),
];

describe("the order under random operation sequences", () => {
  it("keeps money, quantities and states consistent and never answers 500", async () => {
    const { token } = await signIn();
    let run = 0;
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 10 }), async (cmds) => {
        const id = await approved(token);
        const model: Model = { quantities: { "KB-01": 2, "BK-7": 1, SHIP: 1 }, refunded: 0, run: 0, accepted: 0 };
        await fc.asyncModelRun(() => ({ model, real: { token, id } }), cmds);
        run += model.run;
        accepted += model.accepted;
      }),
      { numRuns: 40 },
    );
    // A good share of the random requests must have been carried out (about 40% are), or the
    // invariants were checked on refusals only.
    expect(accepted / run).toBeGreaterThan(0.25);
  }, 300_000);
});
