/**
 * The operations on an order (CONTRACT 5) as plans: each takes the application as it is and the
 * request, and answers the plan of the change or the refusal. Pure: no HTTP, no SQL.
 */
import { expiredProblem, lapsed } from "./deadlines";
import type { AcceptedDocument } from "./documents";
import { ledgerOf, refundableAmount } from "./ledger";
import { formatMoney } from "./money";
import {
  applyToLines,
  discountSelections,
  financedAmount,
  type ItemSelector,
  isDiscount,
  type Line,
  type LinesChange,
  type LineUpdate,
  newLines,
  type OrderItem,
  settleDiscounts,
} from "./order-lines";
import { type Current, finish, type Outcome, type Plan, type PlanContext, refusalOf } from "./plan";
import { type Problem, problem, type Result, refused } from "./result";

interface Money {
  amount: number;
  currency: string;
}

/** A document kept with the order (a return's credit note, a shipment's invoice), its file accepted. */
export interface KeptDocument {
  type: string;
  description?: string | undefined;
  extraData?: { variableSymbol?: string | undefined } | undefined;
  accepted: AcceptedDocument;
}

/** What an operation that may keep a document takes: the document, and the variable symbol it is for. */
interface WithDocument {
  variableSymbol?: string | undefined;
  document?: KeptDocument | undefined;
}

export interface SendRequest extends WithDocument {
  /** Omitted: every line not yet sent. */
  items?: readonly ItemSelector[] | undefined;
  /** Omitted: today. */
  sentDate?: string | undefined;
  deliveryTrackingNumber?: string | undefined;
  /** The partner's own reference of the shipment (an invoice number, say). */
  reference?: string | undefined;
}

export interface DeliverRequest extends WithDocument {
  /** Omitted: every line not yet delivered. */
  items?: readonly ItemSelector[] | undefined;
  /** Omitted: today. */
  deliveryDate?: string | undefined;
  /** The sent date of lines delivered without being sent first; defaults to `deliveryDate`. */
  sentDate?: string | undefined;
  /** The tracking number and reference of the shipment of lines delivered without being sent first. */
  deliveryTrackingNumber?: string | undefined;
  reference?: string | undefined;
}

export interface ReturnRequest extends WithDocument {
  /** Omitted: the whole order; empty: an amount-only refund (then `totalPrice` is required). */
  items?: readonly ItemSelector[] | undefined;
  /** Overrides the refunded amount. */
  totalPrice?: Money | undefined;
}

/** The variable symbol a document is for: the request's, else the document's own. */
const symbolOf = ({ variableSymbol, document }: WithDocument) =>
  variableSymbol ?? document?.extraData?.variableSymbol ?? null;

/** The request's document as the outcome keeps it, if it has one. */
const keptDocument = (request: WithDocument): Pick<Outcome, "document"> => {
  const { document } = request;
  return document
    ? {
        document: {
          type: document.type,
          description: document.description ?? null,
          ...document.accepted,
          variableSymbol: symbolOf(request),
        },
      }
    : {};
};

export interface RefundRequest {
  totalPrice: Money;
  reason?: string | undefined;
  variableSymbol?: string | undefined;
}

const unsent = (line: Line) => line.state === "PROCESSING";
/** Goods out with the customer, which can come back (a returned line came back already). */
const returnable = (line: Line) => line.state === "SENT" || line.state === "DELIVERED";
const goods = (eligible: (line: Line) => boolean) => (line: Line) => eligible(line) && !isDiscount(line);

const NOTHING_TO_RETURN = problem("NOTHING_TO_RETURN", "no item was sent or delivered", "items");

/**
 * A refund amount the partner names (a refund's, or a return's `totalPrice`) is at least 1: refunding
 * nothing, or less, is no refund. One rule for both, with one code; the ledger refuses the other end.
 */
function belowOne(totalPrice: Money | undefined, current: Current): Problem | undefined {
  if (!totalPrice || totalPrice.amount >= 1) return undefined;
  const refundable = refundableAmount(ledgerOf(current.application, current.lines));
  return problem(
    "REFUND_LIMIT_EXCEEDED",
    `a refund must be at least ${formatMoney(1, current.application.currency)}, at most the ${formatMoney(refundable, current.application.currency)} still refundable`,
    "totalPrice.amount",
  );
}

/**
 * A deadline judged at the moment of the request (CONTRACT 6a): once it passed, what it ends is refused
 * even before the scheduled sweep applies the lapse: goods not yet sent can no longer go out, and an
 * order awaiting the customer or its goods can no longer change. What stays financed (goods that went
 * out) and cancelling are unaffected.
 */
const expired = (current: Current, ctx: PlanContext): Problem | undefined =>
  lapsed(current.application, ctx.at) ? expiredProblem(current.application.expiresAt) : undefined;

/** Money in a request must be in the application's currency (one currency per application). */
function currencyProblem(money: Money | undefined, current: Current, attribute: string): Problem | undefined {
  const { currency } = current.application;
  return money && money.currency !== currency
    ? problem("CURRENCY_MISMATCH", `must be ${currency}, the application's currency`, attribute)
    : undefined;
}

/** The lines an operation changed, or its refusal; a request that changes nothing is refused with `nothingLeft`. */
function changed(outcome: Result<LinesChange>, nothingLeft: Problem): Result<LinesChange> {
  if (outcome.ok && outcome.value.updated.length === 0 && outcome.value.created.length === 0) {
    return refused(nothingLeft);
  }
  return outcome;
}

/**
 * A discount stays whole with the goods that remain (see order-lines), so taking goods away must leave
 * at least as much as the discount takes off.
 */
function discountCovered(lines: readonly Line[], currency: string): Problem | undefined {
  const financed = financedAmount(lines);
  return financed < 0
    ? problem(
        "DISCOUNT_NOT_SEPARABLE",
        `the order's discount would be more than the ${formatMoney(financed - discountOf(lines), currency)} left: act on the whole order instead`,
        "items",
      )
    : undefined;
}

const discountOf = (lines: readonly Line[]) =>
  lines.reduce((sum, l) => (isDiscount(l) && l.state !== "CANCELLED" ? sum + l.totalPriceAmount : sum), 0);

/** Replaces the order's content; allowed until goods go out, and after approval up to the approved total. */
export function planChange(
  current: Current,
  request: { order: { totalPrice: Money; items: readonly OrderItem[] } },
  ctx: PlanContext,
): Result<Plan> {
  const refusal =
    refusalOf("CHANGE_ORDER", current) ??
    expired(current, ctx) ??
    currencyProblem(request.order.totalPrice, current, "order.totalPrice.currency");
  if (refusal) return refused(refusal);
  const lines = newLines(request.order.items, ctx.newId);
  return finish(
    current,
    {
      lines: { lines, created: lines.map((l) => l.id), updated: [], touchedAmount: 0, replace: true },
      movement: { reprice: true, attribute: "order.totalPrice.amount" },
    },
    ctx,
  );
}

/** Cancels goods not yet sent; cancelling every remaining line cancels the application. */
export function planCancelItems(
  current: Current,
  request: { items?: readonly ItemSelector[] | undefined },
  ctx: PlanContext,
): Result<Plan> {
  const refusal = refusalOf("CANCEL_ITEMS", current);
  if (refusal) return refused(refusal);
  const inseparable = discountSelections(current.lines, request.items);
  if (inseparable.length > 0) return refused(...inseparable);
  const change = changed(
    applyToLines(current.lines, request.items, goods(unsent), { state: "CANCELLED" }, ctx.newId),
    problem("ITEM_NOT_FOUND", "no item is left that was not sent", "items"),
  );
  if (!change.ok) return change;
  const lines = settleDiscounts(change.value, current.application.refundedAmount);
  const uncovered = discountCovered(lines.lines, current.application.currency);
  if (uncovered) return refused(uncovered);
  return finish(current, { lines, movement: { attribute: "items" } }, ctx);
}

export function planSend(current: Current, request: SendRequest, ctx: PlanContext): Result<Plan> {
  const refusal = refusalOf("SEND", current) ?? expired(current, ctx);
  if (refusal) return refused(refusal);
  const update: LineUpdate = {
    state: "SENT",
    sentDate: request.sentDate ?? ctx.today,
    ...(request.deliveryTrackingNumber ? { deliveryTrackingNumber: request.deliveryTrackingNumber } : {}),
  };
  const lines = changed(
    applyToLines(current.lines, request.items, unsent, update, ctx.newId),
    problem("ORDER_ALREADY_SENT", "every item is already sent, delivered or cancelled", "items"),
  );
  if (!lines.ok) return lines;
  const { reference, deliveryTrackingNumber } = request;
  return finish(
    current,
    {
      lines: lines.value,
      movement: { shipped: true, attribute: "items" },
      shipping: { reference, deliveryTrackingNumber },
      ...keptDocument(request),
    },
    ctx,
  );
}

export function planDeliver(current: Current, request: DeliverRequest, ctx: PlanContext): Result<Plan> {
  const refusal = refusalOf("DELIVER", current);
  if (refusal) return refused(refusal);
  const deliveryDate = request.deliveryDate ?? ctx.today;
  const update: LineUpdate = {
    state: "DELIVERED",
    deliveryDate,
    ...(request.deliveryTrackingNumber ? { deliveryTrackingNumber: request.deliveryTrackingNumber } : {}),
  };
  const change = changed(
    applyToLines(current.lines, request.items, (l) => unsent(l) || l.state === "SENT", update, ctx.newId),
    problem("ITEM_NOT_FOUND", "no item is left to deliver", "items"),
  );
  if (!change.ok) return change;
  // Delivered implies sent: a line that skipped sending gets a sent date too, but not once its
  // authorization lapsed (a touched line without a sent date was never sent).
  const touched = new Set([...change.value.updated, ...change.value.created]);
  const sendsToo = change.value.lines.some((l) => touched.has(l.id) && l.sentDate === null);
  const lapse = sendsToo ? expired(current, ctx) : undefined;
  if (lapse) return refused(lapse);
  const sentDate = request.sentDate ?? deliveryDate;
  const lines = change.value.lines.map((l) => (touched.has(l.id) && l.sentDate === null ? { ...l, sentDate } : l));
  return finish(
    current,
    {
      lines: { ...change.value, lines },
      movement: { shipped: true, attribute: "items" },
      shipping: { reference: request.reference, deliveryTrackingNumber: request.deliveryTrackingNumber },
      ...keptDocument(request),
    },
    ctx,
  );
}

/**
 * Everything that went out comes back and what never went out is cancelled; the refund defaults to
 * all that is still refundable. Listed items: those sent or delivered units come back and the refund
 * defaults to their price. No items (`[]`): only the amount is refunded. `totalPrice` overrides the
 * refund in every case; the ledger refuses a refund above what is refundable.
 */
export function planReturn(current: Current, request: ReturnRequest, ctx: PlanContext): Result<Plan> {
  const refusal =
    refusalOf("RETURN", current) ??
    currencyProblem(request.totalPrice, current, "totalPrice.currency") ??
    belowOne(request.totalPrice, current);
  if (refusal) return refused(refusal);
  const inseparable = discountSelections(current.lines, request.items);
  if (inseparable.length > 0) return refused(...inseparable);

  const { refundedAmount } = current.application;
  let change: Result<LinesChange> | undefined;
  if (request.items === undefined) change = returnEverything(current.lines, ctx.newId);
  else if (request.items.length > 0) {
    change = changed(
      applyToLines(current.lines, request.items, goods(returnable), { state: "RETURNED" }, ctx.newId),
      NOTHING_TO_RETURN,
    );
  }
  if (change && !change.ok) return change;
  const lines = change ? settleDiscounts(change.value, refundedAmount) : undefined;
  const uncovered = lines && discountCovered(lines.lines, current.application.currency);
  if (uncovered) return refused(uncovered);

  const after = lines?.lines ?? current.lines;
  const byDefault =
    request.items === undefined ? refundableAmount(ledgerOf(current.application, after)) : (lines?.touchedAmount ?? 0);
  return finish(
    current,
    {
      ...(lines ? { lines } : {}),
      movement: {
        refund: Math.max(0, request.totalPrice?.amount ?? byDefault),
        attribute: request.totalPrice ? "totalPrice.amount" : "items",
      },
      refund: { origin: "RETURN", reason: null, variableSymbol: symbolOf(request) },
      ...keptDocument(request),
    },
    ctx,
  );
}

/** The whole order comes back: goods that went out are returned, goods that never did are cancelled. */
function returnEverything(lines: readonly Line[], newId: () => string): Result<LinesChange> {
  const returned = changed(
    applyToLines(lines, undefined, goods(returnable), { state: "RETURNED" }, newId),
    NOTHING_TO_RETURN,
  );
  if (!returned.ok) return returned;
  const rest = applyToLines(returned.value.lines, undefined, goods(unsent), { state: "CANCELLED" }, newId);
  if (!rest.ok) return rest;
  return {
    ok: true,
    value: {
      lines: rest.value.lines,
      created: [...returned.value.created, ...rest.value.created],
      updated: [...new Set([...returned.value.updated, ...rest.value.updated])],
      // The cancelled goods were never refundable: only what came back counts.
      touchedAmount: returned.value.touchedAmount,
    },
  };
}

/** A refund of any amount up to what is refundable; lines and order state do not change. */
export function planRefund(current: Current, request: RefundRequest, ctx: PlanContext): Result<Plan> {
  const refusal =
    refusalOf("REFUND", current) ??
    currencyProblem(request.totalPrice, current, "totalPrice.currency") ??
    belowOne(request.totalPrice, current);
  if (refusal) return refused(refusal);
  return finish(
    current,
    {
      movement: { refund: request.totalPrice.amount, attribute: "totalPrice.amount" },
      refund: { origin: "REFUND", reason: request.reason ?? null, variableSymbol: request.variableSymbol ?? null },
    },
    ctx,
  );
}
