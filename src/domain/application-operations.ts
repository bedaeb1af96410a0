/**
 * The operations on the application as a whole as plans: its creation, the credit decision, the
 * cancellation, and the customer's one answer at the gateway. Pure: no HTTP, no SQL.
 */
import type { ApplicationState, CancelReason, StateReason } from "./application-state";
import { type DecisionLimits, decide } from "./decision";
import { type OrderMoneyInput, orderConsistencyProblems } from "./money";
import { offerOf, offerToken } from "./offer";
import { applyToLines, financedAmount, type Line, newLines, type OrderItem } from "./order-lines";
import { type Current, type EventRecord, finish, type Plan, type PlanContext, refusalOf } from "./plan";
import { ok, problem, type Result, refused } from "./result";
import { merchantUrlProblems, type UrlPolicy } from "./url-safety";

/** Order fields kept as sent, besides lines and totals. */
export interface OrderDetails {
  number: string;
  /** Unix milliseconds. */
  reservationDate?: number | undefined;
  addresses?: Record<string, string>[] | undefined;
  variableSymbols: string[];
  deliveryCarrier?: { carrierId: string } | undefined;
  channel?: string | undefined;
}

export interface MerchantUrls {
  approvedRedirect: string;
  rejectedRedirect: string;
  notificationEndpoint: string;
}

/** A create request as validated (unknown fields dropped, defaults filled). */
export interface CreateRequest {
  type: string;
  agreementTermsAndConditions: boolean;
  customer: { email: string } & Record<string, unknown>;
  order: OrderMoneyInput &
    Omit<OrderDetails, "reservationDate"> & { reservationDate?: string | undefined; items: readonly OrderItem[] };
  merchantUrls: MerchantUrls;
}

/** A new application as the rules make it. */
export interface NewApplication {
  id: string;
  type: string;
  state: ApplicationState;
  stateReason: StateReason;
  agreementTermsAndConditions: boolean;
  customer: CreateRequest["customer"];
  orderDetails: OrderDetails;
  merchantUrls: MerchantUrls;
  currency: string;
  /** The financed total: the lines'. */
  totalAmount: number;
  eventSequence: number;
  createdAt: number;
}

export interface CreatePlan {
  application: NewApplication;
  lines: Line[];
  event: EventRecord;
}

/**
 * A new application (CONTRACT 4): its amounts must add up and its URLs be ones we may send a customer
 * and notifications to (400 otherwise, every problem named); it starts PROCESSING /
 * PROCESSING_REDIRECT_NEEDED, waiting for the customer, with its first event.
 */
export function planCreate(request: CreateRequest, ctx: PlanContext & { urlPolicy: UrlPolicy }): Result<CreatePlan> {
  const problems = [
    ...orderConsistencyProblems(request.order),
    ...merchantUrlProblems({ ...request.merchantUrls }, ctx.urlPolicy),
  ];
  if (problems.length > 0) return refused(...problems);
  const { order } = request;
  const id = ctx.newId();
  const lines = newLines(order.items, ctx.newId);
  const state = "PROCESSING";
  const stateReason = "PROCESSING_REDIRECT_NEEDED";
  return ok({
    application: {
      id,
      type: request.type,
      state,
      stateReason,
      agreementTermsAndConditions: request.agreementTermsAndConditions,
      customer: request.customer,
      orderDetails: {
        number: order.number,
        reservationDate: order.reservationDate === undefined ? undefined : Date.parse(order.reservationDate),
        addresses: order.addresses,
        variableSymbols: order.variableSymbols,
        deliveryCarrier: order.deliveryCarrier,
        channel: order.channel,
      },
      merchantUrls: request.merchantUrls,
      currency: order.totalPrice.currency,
      totalAmount: financedAmount(lines),
      eventSequence: 1,
      createdAt: ctx.at,
    },
    lines,
    event: { id: ctx.newId(), sequence: 1, state, stateReason, occurredAt: ctx.at },
  });
}

/**
 * The whole application cancelled, whoever asks (the partner, the customer at the gateway): every line
 * CANCELLED, nothing left financed, CANCELLED / CANCELLED_NOT_PAID. Refused once goods went out, and
 * while anything is refunded (the refund would exceed what remains financed).
 */
export function planCancellation(
  current: Current,
  request: { reason: CancelReason; customReason?: string | null | undefined },
  ctx: PlanContext,
): Result<Plan> {
  const refusal = refusalOf("CANCEL", current);
  if (refusal) return refused(refusal);
  const lines = applyToLines(
    current.lines,
    undefined,
    (l) => l.state !== "CANCELLED",
    { state: "CANCELLED" },
    ctx.newId,
  );
  if (!lines.ok) return lines;
  return finish(
    current,
    {
      lines: lines.value,
      next: { state: "CANCELLED", stateReason: "CANCELLED_NOT_PAID" },
      fields: { cancelReason: request.reason, customCancelReason: request.customReason ?? null },
    },
    ctx,
  );
}

/**
 * The credit decision on the customer's confirm (CONTRACT 6). The agreement counts when the partner sent
 * it or the customer ticks it now; ticking it is recorded, whatever the outcome. Approval fixes the
 * approved amount at the financed total.
 */
export function planDecision(
  current: Current,
  request: { agreedNow: boolean; limits: DecisionLimits; termsDate: string },
  ctx: PlanContext,
): Result<Plan> {
  const refusal = refusalOf("DECIDE", current);
  if (refusal) return refused(refusal);
  const app = current.application;
  const agreement = app.agreementTermsAndConditions || request.agreedNow;
  const decision = decide(
    {
      type: app.type,
      totalAmount: financedAmount(current.lines),
      currency: app.currency,
      customerEmail: app.customerEmail,
      agreementTermsAndConditions: agreement,
    },
    request.limits,
  );
  const fields = {
    decisionReasons: decision.reasons,
    decidedAt: ctx.at,
    ...(agreement && !app.agreementTermsAndConditions ? { agreementTermsAndConditions: true } : {}),
  };
  if (decision.outcome === "REJECTED") {
    return finish(current, { next: { state: "REJECTED", stateReason: "REJECTED" }, fields }, ctx);
  }
  return finish(
    current,
    {
      next: { state: "READY", stateReason: "READY_TO_SHIP" },
      approve: true,
      fields: { ...fields, acceptedOffer: offerOf(current, request.termsDate) },
    },
    ctx,
  );
}

/**
 * The customer answers once, at the gateway: confirm runs the decision, cancel cancels, each only for
 * the offer the customer saw (`offer`, the token of the page's form; offer.ts): when the order changed
 * since, or the day did, nothing is decided and OFFER_CHANGED asks for the new offer to be shown. Once
 * the application left PROCESSING the customer's say has ended (even where the partner could still
 * cancel), so a second submit is refused and the gateway only shows the outcome.
 */
export function planCustomerAnswer(
  current: Current,
  request: {
    action: "confirm" | "cancel";
    agreedNow: boolean;
    limits: DecisionLimits;
    offer: string | undefined;
    termsDate: string;
  },
  ctx: PlanContext,
): Result<Plan> {
  if (current.application.state !== "PROCESSING") {
    return refused(problem("APPLICATION_ALREADY_DECIDED", "the customer has already answered"));
  }
  if (request.offer !== offerToken(current, request.termsDate)) {
    return refused(problem("OFFER_CHANGED", "the offer changed since the customer saw it"));
  }
  return request.action === "confirm"
    ? planDecision(current, request, ctx)
    : planCancellation(current, { reason: "APPLICATION_CANCELLED_BY_CUSTOMER" }, ctx);
}
