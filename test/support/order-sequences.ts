/**
 * Random orders and random sequences of order operations, for the property tests of src/domain (run
 * purely) and the same sequences through the HTTP API (compared with the domain's answers).
 */
import fc from "fast-check";
import { expect } from "vitest";
import { planAdvance, planCancellation, planDue, planExtend } from "../../src/domain/application-operations";
import { deriveOrderState } from "../../src/domain/application-state";
import { hasUnsentGoods, lapsed } from "../../src/domain/deadlines";
import { ledgerOf, refundableAmount } from "../../src/domain/ledger";
import { isDiscount, type OrderItem } from "../../src/domain/order-lines";
import {
  planCancelItems,
  planChange,
  planDeliver,
  planRefund,
  planReturn,
  planSend,
} from "../../src/domain/order-operations";
import type { applyPlan, Current, Plan, PlanContext } from "../../src/domain/plan";
import type { Result } from "../../src/domain/result";

export const SENT_DATE = "2026-11-23";
export const DELIVERY_DATE = "2026-11-25";

export interface Selector {
  code?: string;
  type?: string;
  quantity?: number;
}

/**
 * An amount as sent, or one relative to what is refundable when the step runs (the edges where a
 * ceiling is off by one show only there).
 */
export type Amount = number | { refundable: -1 | 0 | 1 };

/**
 * The partner's operations, and time: `advance` is the sandbox's (the application's deadlines `days`
 * closer, what became due applied at once), `wait` lets the clock run without the sweep (the domain's
 * sequences only: every operation judges deadlines at its own moment), `sweep` applies what is due.
 */
export type Operation =
  | { kind: "change"; items: OrderItem[] }
  | { kind: "cancel items"; items?: Selector[] }
  | { kind: "send"; items?: Selector[] }
  | { kind: "deliver"; items?: Selector[] }
  | { kind: "return"; items?: Selector[]; amount?: Amount }
  | { kind: "refund"; amount: Amount }
  | { kind: "cancel" }
  | { kind: "extend" }
  | { kind: "advance"; days: number }
  | { kind: "wait"; days: number }
  | { kind: "sweep" };

/** Days that cross each deadline and its edges: the reminder (21), the authorization (28), the cap. */
const DAYS = [0.0001, 2, 4, 21, 22, 29, 90, 200];

const VAT_RATES: Record<string, number> = { PHYSICAL: 21, DIGITAL: 21, SHIPPING_FEE: 12, DISCOUNT: 21 };

function lineItem(code: string, type: string, unit: number, quantity: number): OrderItem {
  const total = unit * quantity;
  const rate = VAT_RATES[type]!;
  return {
    code,
    name: `Item ${code}`,
    type,
    quantity,
    ...(type === "DISCOUNT" ? {} : { unitPrice: { amount: unit } }),
    totalPrice: { amount: total },
    totalVat: { vatRate: rate, amount: Math.trunc((total * rate) / (100 + rate)) },
  };
}

/**
 * 1 to 4 goods lines (physical, digital, shipping) of 1 to 4 units, and up to 2 DISCOUNT lines that
 * together take off less than the goods cost (the order total stays positive).
 */
export const orderItems: fc.Arbitrary<OrderItem[]> = fc
  .tuple(
    fc.array(
      fc.record({
        type: fc.constantFrom("PHYSICAL", "PHYSICAL", "DIGITAL", "SHIPPING_FEE"),
        unit: fc.integer({ min: 1, max: 30000 }),
        quantity: fc.integer({ min: 1, max: 4 }),
      }),
      { minLength: 1, maxLength: 4 },
    ),
    fc.array(fc.integer({ min: 1, max: 99 }), { maxLength: 2 }),
  )
  .map(([goods, discounts]) => {
    const items = goods.map((g, i) => lineItem(`G${i + 1}`, g.type, g.unit, g.quantity));
    const goodsTotal = items.reduce((sum, i) => sum + i.totalPrice.amount, 0);
    const share = (goodsTotal - 1) / Math.max(1, discounts.length);
    discounts.forEach((percent, i) => {
      const off = Math.floor((share * percent) / 100);
      if (off >= 1) items.push(lineItem(`D${i + 1}`, "DISCOUNT", -off, 1));
    });
    return items;
  });

const selector = (codes: readonly string[]): fc.Arbitrary<Selector> =>
  fc.oneof(
    fc.record({ code: fc.constantFrom(...codes, "NOPE") }),
    fc.record({ code: fc.constantFrom(...codes), quantity: fc.integer({ min: 1, max: 4 }) }),
    fc.record({ type: fc.constantFrom("PHYSICAL", "SHIPPING_FEE", "DISCOUNT") }),
  );

const selection = (codes: readonly string[]) =>
  fc.option(fc.array(selector(codes), { minLength: 1, maxLength: 3 }), { nil: undefined });

/**
 * Operations on an order whose items carry `codes`; amounts sometimes beyond what any order allows.
 * `clock`: also time running without the sweep, and the sweep (the domain's sequences).
 */
export function operation(codes: readonly string[], clock = false): fc.Arbitrary<Operation> {
  const amount = fc.oneof<fc.Arbitrary<Amount>[]>(
    fc.integer({ min: 1, max: 500 }),
    fc.integer({ min: 1, max: 150000 }),
    fc.constantFrom(-1, 0, 1).map((k) => ({ refundable: k as -1 | 0 | 1 })),
  );
  return fc.oneof(
    { weight: 1, arbitrary: orderItems.map((items): Operation => ({ kind: "change", items })) },
    { weight: 3, arbitrary: selection(codes).map((items): Operation => ({ kind: "cancel items", items })) },
    { weight: 4, arbitrary: selection(codes).map((items): Operation => ({ kind: "send", items })) },
    { weight: 2, arbitrary: selection(codes).map((items): Operation => ({ kind: "deliver", items })) },
    {
      weight: 4,
      arbitrary: fc
        .record({ items: selection(codes), amount: fc.option(amount, { nil: undefined }) })
        .map(({ items, amount }): Operation => ({ kind: "return", items, amount })),
    },
    {
      weight: 1,
      arbitrary: amount.map((amount): Operation => ({ kind: "return", items: [], amount })),
    },
    {
      weight: 3,
      arbitrary: fc
        .oneof(amount, fc.integer({ min: -100, max: 0 }))
        .map((a): Operation => ({ kind: "refund", amount: a })),
    },
    { weight: 1, arbitrary: fc.constant<Operation>({ kind: "cancel" }) },
    { weight: 1, arbitrary: fc.constant<Operation>({ kind: "extend" }) },
    { weight: 2, arbitrary: fc.constantFrom(...DAYS).map((days): Operation => ({ kind: "advance", days })) },
    ...(clock
      ? [
          { weight: 2, arbitrary: fc.constantFrom(...DAYS).map((days): Operation => ({ kind: "wait", days })) },
          { weight: 2, arbitrary: fc.constant<Operation>({ kind: "sweep" }) },
        ]
      : []),
  );
}

/** An order and a sequence of operations on it (with `clock`: time running and the sweep too). */
export function scenario(maxSteps: number, clock = false) {
  return orderItems.chain((items) =>
    fc.record({
      items: fc.constant(items),
      // Most sequences start approved; some before approval, where fewer operations are allowed, and
      // some under a manual review.
      start: fc.constantFrom<Start>("READY", "READY", "READY", "EXTENDED", "PROCESSING", "REVIEW"),
      operations: fc.array(
        operation(
          items.map((i) => i.code),
          clock,
        ),
        { minLength: 1, maxLength: maxSteps },
      ),
    }),
  );
}

export type Start = "READY" | "EXTENDED" | "PROCESSING" | "REVIEW";

const CZK = (amount: number) => ({ amount, currency: "CZK" });

/** The order content of a change-order request, consistent like a create. */
export function orderContent(items: readonly OrderItem[]) {
  const vat = new Map<number, number>();
  for (const i of items) vat.set(i.totalVat.vatRate, (vat.get(i.totalVat.vatRate) ?? 0) + i.totalVat.amount);
  return {
    totalPrice: CZK(items.reduce((sum, i) => sum + i.totalPrice.amount, 0)),
    totalVat: [...vat].map(([vatRate, amount]) => ({ vatRate, amount, currency: "CZK" })),
    items: items.map((i) => ({
      ...i,
      ...(i.unitPrice ? { unitPrice: CZK(i.unitPrice.amount) } : {}),
      totalPrice: CZK(i.totalPrice.amount),
      totalVat: { ...i.totalVat, currency: "CZK" },
    })),
  };
}

/** The amount to send: a relative one is resolved against what `current` still has refundable. */
export function amountOf(amount: Amount, current: Current): number {
  if (typeof amount === "number") return amount;
  return refundableAmount(ledgerOf(current.application, current.lines)) + amount.refundable;
}

/** The operation with its amounts resolved against `current`, as it is sent to the domain and to the API. */
export function resolve(op: Operation, current: Current): Operation {
  return "amount" in op && op.amount !== undefined ? { ...op, amount: amountOf(op.amount, current) } : op;
}

/** The operation as the domain is asked it (amounts resolved, see `resolve`). */
export function plan(current: Current, op: Operation, ctx: PlanContext): Result<Plan> {
  switch (op.kind) {
    case "change":
      return planChange(current, { order: orderContent(op.items) }, ctx);
    case "cancel items":
      return planCancelItems(current, { items: op.items }, ctx);
    case "send":
      return planSend(current, { items: op.items, sentDate: SENT_DATE }, ctx);
    case "deliver":
      return planDeliver(current, { items: op.items, deliveryDate: DELIVERY_DATE }, ctx);
    case "return": {
      const amount = op.amount === undefined ? undefined : amountOf(op.amount, current);
      return planReturn(
        current,
        { items: op.items, ...(amount === undefined ? {} : { totalPrice: CZK(amount) }) },
        ctx,
      );
    }
    case "refund":
      return planRefund(current, { totalPrice: CZK(amountOf(op.amount, current)) }, ctx);
    case "cancel":
      return planCancellation(current, { reason: "APPLICATION_CANCELLED_OTHER" }, ctx);
    case "extend":
      return planExtend(current, ctx);
    case "advance":
      return planAdvance(current, { seconds: secondsOf(op.days) }, ctx);
    case "sweep":
      return planDue(current, ctx);
    case "wait":
      throw new Error("time running is the clock's, not a plan");
  }
}

/** Whole seconds, at least one (the sandbox's advance takes 1 second to 400 days). */
export const secondsOf = (days: number) => Math.max(1, Math.round(days * 86_400));

/** The operation as the API is asked it (amounts resolved, see `resolve`): method, path, body. */
export function request(op: Operation, applicationId: string): { method: string; path: string; body: unknown } {
  const { method, path, body } = requestBelow(op);
  return {
    method,
    path:
      op.kind === "advance"
        ? `/financing/v1/sandbox/applications/${applicationId}${path}`
        : `/financing/v1/applications/${applicationId}${path}`,
    body,
  };
}

/** The request's method, its path below the application's, and its body. */
function requestBelow(op: Operation): { method: string; path: string; body: unknown } {
  const money = (amount: Amount) => {
    if (typeof amount !== "number") throw new Error("resolve the amount first");
    return CZK(amount);
  };
  const items = "items" in op && op.items !== undefined ? { items: op.items } : {};
  switch (op.kind) {
    case "change":
      return { method: "PUT", path: "/order", body: { order: orderContent(op.items) } };
    case "cancel items":
      return { method: "PUT", path: "/order/cancel", body: items };
    case "send":
      return { method: "PUT", path: "/order/send", body: { ...items, sentDate: SENT_DATE } };
    case "deliver":
      return { method: "PUT", path: "/order/deliver", body: { ...items, deliveryDate: DELIVERY_DATE } };
    case "return":
      return {
        method: "PUT",
        path: "/order/return",
        body: { ...items, ...(op.amount === undefined ? {} : { totalPrice: money(op.amount) }) },
      };
    case "refund":
      return { method: "POST", path: "/refunds", body: { totalPrice: money(op.amount) } };
    case "cancel":
      return { method: "PUT", path: "/cancel", body: {} };
    case "extend":
      return { method: "PUT", path: "/authorization/extend", body: {} };
    case "advance":
      return { method: "POST", path: "/advance-time", body: { seconds: secondsOf(op.days) } };
    case "wait":
    case "sweep":
      throw new Error(`${op.kind} has no request: the API's sequences run without it`);
  }
}

/**
 * The invariants every accepted step keeps, written here independently of the code under test:
 * - money: 0 ≤ refunded ≤ financed ≤ approved, the stored total is the lines' financed total, the
 *   financed total rises only by an order change, the refunded total never falls, and by exactly the
 *   refund recorded;
 * - quantities: every ordered unit is on exactly one line (a split never loses or adds one);
 * - discounts: a DISCOUNT line leaves (cancelled or returned) only when every other line has left,
 *   and is cancelled while goods came back only when returning it would leave less financed than
 *   was refunded;
 * - states: the order state follows from the lines, READY_TO_SHIP exactly while nothing went out, an
 *   event exactly when the state or its reason changed.
 */
export function checkStep(before: Current, op: Operation, plan: Plan, after: ReturnType<typeof applyPlan>, at: number) {
  const was = ledgerOf(before.application, before.lines);
  const now = ledgerOf(after.application, after.lines);
  expect(now.refunded).toBeGreaterThanOrEqual(0);
  expect(now.refunded).toBeLessThanOrEqual(now.financed);
  if (now.approved !== null) expect(now.financed).toBeLessThanOrEqual(now.approved);
  expect(after.application.totalAmount).toBe(now.financed);
  // The financed total rises only by an order change, or a lapse: then it is exactly what went out.
  const lapsedNow =
    (op.kind === "sweep" || op.kind === "advance") && hasUnsentGoods(before.lines) && !hasUnsentGoods(after.lines);
  if (lapsedNow) expect(now.financed).toBe(now.wentOut);
  else if (op.kind !== "change") expect(now.financed).toBeLessThanOrEqual(was.financed);
  expect(now.refunded).toBeGreaterThanOrEqual(was.refunded);
  expect(now.refunded - was.refunded).toBe(plan.refund?.amount ?? 0);
  // Only a review's settlement approves (at the financed total); nothing else moves the approval.
  const settled = before.application.stateReason === "PROCESSING_MANUAL_REVIEW" && after.application.state === "READY";
  expect(now.approved).toBe(settled ? now.financed : was.approved);

  // Money is refunded only for what went out (CONTRACT 5): a refund never takes more than that.
  if (plan.refund) expect(now.refunded).toBeLessThanOrEqual(now.wentOut);

  // Time: nothing goes out once its authorization lapsed, and what the sweep (or an advance) leaves
  // has no lapsed deadline with goods still waiting on it: a lapse always cancels the goods not sent.
  if (op.kind === "send") expect(lapsed(before.application, at)).toBe(false);
  if (op.kind === "sweep" || op.kind === "advance") {
    const app = after.application;
    if (before.application.state === "READY" && lapsed(before.application, at) && hasUnsentGoods(before.lines)) {
      expect(hasUnsentGoods(after.lines)).toBe(false);
    }
    expect(app.state === "READY" && lapsed(app, at) && hasUnsentGoods(after.lines)).toBe(false);
    expect(app.state === "PROCESSING" && app.stateReason === "PROCESSING_REDIRECT_NEEDED" && lapsed(app, at)).toBe(
      false,
    );
  }
  // A deadline applies exactly while something waits on it.
  const waiting =
    (after.application.state === "READY" && hasUnsentGoods(after.lines)) ||
    after.application.stateReason === "PROCESSING_REDIRECT_NEEDED";
  if (!waiting) expect(after.application.expiresAt).toBeNull();

  if (op.kind !== "change") expect(unitsByPosition(after)).toEqual(unitsByPosition(before));
  const goods = after.lines.filter((l) => !isDiscount(l));
  const left = (state: string) => state === "CANCELLED" || state === "RETURNED";
  const discounts = after.lines.filter(isDiscount);
  for (const discount of discounts) {
    if (left(discount.state)) expect(goods.every((l) => left(l.state))).toBe(true);
  }
  // Discounts that followed the goods out as CANCELLED while some goods came back: returned, they would
  // have left less financed than was refunded.
  const wasOpen = new Set(before.lines.filter((l) => isDiscount(l) && !left(l.state)).map((l) => l.id));
  const cancelledNow = discounts.filter((l) => wasOpen.has(l.id) && l.state === "CANCELLED");
  if (cancelledNow.length > 0 && goods.some((l) => l.state === "RETURNED")) {
    const withDiscountsReturned = now.financed + cancelledNow.reduce((sum, l) => sum + l.totalPriceAmount, 0);
    expect(withDiscountsReturned).toBeLessThan(was.refunded);
  }
  // Once anything went out, what went out covers the discount (the lapse can always keep it alone).
  if (after.lines.some((l) => ["SENT", "DELIVERED", "RETURNED"].includes(l.state))) {
    expect(now.wentOut).toBeGreaterThanOrEqual(0);
  }
  const { state, stateReason } = after.application;
  const wentOut = after.lines.some((l) => ["SENT", "DELIVERED", "RETURNED"].includes(l.state));
  if (state === "READY") expect(stateReason === "READY_TO_SHIP").toBe(!wentOut);
  if (state === "READY") expect(deriveOrderState(after.lines.map((l) => l.state))).not.toMatch(/CANCELLED|RETURNED/);
  const changed = state !== before.application.state || stateReason !== before.application.stateReason;
  // An event for every change of state or reason; besides, only time makes one (a reminder, a lapse
  // of goods not sent while the reason stays).
  if (changed) expect(plan.event?.type).toBe("APPLICATION_STATE_CHANGED");
  else if (plan.event) expect(["sweep", "advance"]).toContain(op.kind);
  expect(after.application.eventSequence).toBe(before.application.eventSequence + (plan.event ? 1 : 0));
}

function unitsByPosition(current: Current): Record<number, number> {
  const units: Record<number, number> = {};
  for (const l of current.lines) units[l.position] = (units[l.position] ?? 0) + l.quantity;
  return units;
}
