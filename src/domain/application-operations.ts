/**
 * The operations on the application as a whole as plans: its creation, the credit decision and a
 * manual review, the cancellation, the customer's one answer at the gateway, and what time does to it
 * (deadlines that lapse, the reminder, an extension, a sandbox's advance of the clock). Pure: no HTTP,
 * no SQL.
 */
import { linesBytes, MAX_APPLICATION_BYTES } from "./application-size";
import type { ApplicationState, CancelReason, StateReason } from "./application-state";
import { authorization, type Deadlines, expiredProblem, hasUnsentGoods, lapsed, nextDue } from "./deadlines";
import { type DecisionLimits, decide } from "./decision";
import { type OrderMoneyInput, orderConsistencyProblems } from "./money";
import { offerOf, offerToken } from "./offer";
import {
  applyToLines,
  financedAmount,
  isDiscount,
  type Line,
  newLines,
  type OrderItem,
  settleDiscounts,
  wentOut,
} from "./order-lines";
import {
  type Current,
  detailsBytes,
  type EventRecord,
  finish,
  type Plan,
  type PlanContext,
  refusalOf,
  sizeLimitProblem,
} from "./plan";
import { ok, type Problem, problem, type Result, refused } from "./result";
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
  /** What it holds (application-size.ts). */
  contentBytes: number;
  /** The customer's deadline, and the earliest deadline (the same, for now). */
  expiresAt: number;
  nextDueAt: number;
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
  const orderDetails = {
    number: order.number,
    reservationDate: order.reservationDate === undefined ? undefined : Date.parse(order.reservationDate),
    addresses: order.addresses,
    variableSymbols: order.variableSymbols,
    deliveryCarrier: order.deliveryCarrier,
    channel: order.channel,
  };
  const contentBytes =
    detailsBytes({ customer: request.customer, orderDetails, merchantUrls: request.merchantUrls }) + linesBytes(lines);
  if (contentBytes > MAX_APPLICATION_BYTES) return refused(sizeLimitProblem("order.items"));
  const state = "PROCESSING";
  const stateReason = "PROCESSING_REDIRECT_NEEDED";
  const expiresAt = ctx.at + ctx.deadlines.customerDecisionMs;
  return ok({
    application: {
      id,
      type: request.type,
      state,
      stateReason,
      agreementTermsAndConditions: request.agreementTermsAndConditions,
      customer: request.customer,
      orderDetails,
      merchantUrls: request.merchantUrls,
      currency: order.totalPrice.currency,
      totalAmount: financedAmount(lines),
      eventSequence: 1,
      contentBytes,
      expiresAt,
      nextDueAt: expiresAt,
      createdAt: ctx.at,
    },
    lines,
    event: {
      id: ctx.newId(),
      type: "APPLICATION_STATE_CHANGED",
      sequence: 1,
      state,
      stateReason,
      expiresAt,
      occurredAt: ctx.at,
    },
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
  return cancelEverything(current, "CANCELLED_NOT_PAID", request.reason, request.customReason ?? null, ctx);
}

/** Every line CANCELLED and the application with it, for `stateReason` and `reason`. */
function cancelEverything(
  current: Current,
  stateReason: "CANCELLED_NOT_PAID" | "CANCELLED_EXPIRED",
  reason: CancelReason,
  customReason: string | null,
  ctx: PlanContext,
): Result<Plan> {
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
      next: { state: "CANCELLED", stateReason },
      fields: { cancelReason: reason, customCancelReason: customReason },
    },
    ctx,
  );
}

/**
 * The credit decision on the customer's confirm (CONTRACT 6). The agreement counts when the partner sent
 * it or the customer ticks it now; ticking it is recorded, whatever the outcome. Approval fixes the
 * approved amount at the financed total, records the offer accepted and starts the authorization; a
 * manual review (sandbox scenarios) keeps the application PROCESSING / PROCESSING_MANUAL_REVIEW until
 * `reviewMs` later, and records the offer the customer accepted already.
 */
export function planDecision(
  current: Current,
  request: { agreedNow: boolean; limits: DecisionLimits; termsDate: string; sandbox: boolean; reviewMs: number },
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
    request.sandbox,
  );
  const fields = {
    decisionReasons: decision.reasons,
    decidedAt: ctx.at,
    ...(agreement && !app.agreementTermsAndConditions ? { agreementTermsAndConditions: true } : {}),
  };
  if (decision.outcome === "REJECTED") {
    return finish(current, { next: { state: "REJECTED", stateReason: "REJECTED" }, fields }, ctx);
  }
  const acceptedOffer = offerOf(current, request.termsDate);
  if (decision.outcome === "REVIEW") {
    return finish(
      current,
      {
        next: { state: "PROCESSING", stateReason: "PROCESSING_MANUAL_REVIEW" },
        deadlines: { reviewAt: ctx.at + request.reviewMs },
        fields: { ...fields, acceptedOffer, reviewOutcome: decision.review ?? "APPROVE" },
      },
      ctx,
    );
  }
  return finish(
    current,
    { next: { state: "READY", stateReason: "READY_TO_SHIP" }, approve: true, fields: { ...fields, acceptedOffer } },
    ctx,
  );
}

/** What the customer answered on the gateway's form, with what deciding it needs. */
export interface CustomerAnswer {
  action: "confirm" | "cancel";
  agreedNow: boolean;
  limits: DecisionLimits;
  offer: string | undefined;
  termsDate: string;
  sandbox: boolean;
  reviewMs: number;
}

/**
 * The customer answers once, at the gateway: confirm runs the decision, cancel cancels, each only for
 * the offer the customer saw (`offer`, the token of the page's form; offer.ts): when the order changed
 * since, or the day did, nothing is decided and OFFER_CHANGED asks for the new offer to be shown. Once
 * the application left PROCESSING_REDIRECT_NEEDED the customer's say has ended (even where the partner
 * could still cancel), so a second submit is refused and the gateway only shows the outcome; after the
 * customer's deadline it is AUTHORIZATION_EXPIRED.
 */
export function planCustomerAnswer(current: Current, request: CustomerAnswer, ctx: PlanContext): Result<Plan> {
  const app = current.application;
  if (app.state !== "PROCESSING" || app.stateReason !== "PROCESSING_REDIRECT_NEEDED") {
    return refused(problem("APPLICATION_ALREADY_DECIDED", "the customer has already answered"));
  }
  if (lapsed(app, ctx.at)) return refused(expiredProblem(app.expiresAt));
  if (request.offer !== offerToken(current, request.termsDate)) {
    return refused(problem("OFFER_CHANGED", "the offer changed since the customer saw it"));
  }
  return request.action === "confirm"
    ? planDecision(current, request, ctx)
    : planCancellation(current, { reason: "APPLICATION_CANCELLED_BY_CUSTOMER" }, ctx);
}

/**
 * What the deadline does once it passed (CONTRACT 6a):
 * - awaiting the customer → CANCELLED / CANCELLED_EXPIRED (cancelReason APPLICATION_CANCELLED_EXPIRED);
 * - approved with nothing sent → CANCELLED / CANCELLED_EXPIRED, nothing left financed;
 * - approved with part sent → the goods not sent are CANCELLED (a discount settles with them as when
 *   they are cancelled); what went out stays financed and refundable, and the application READY.
 * Refunds are only ever of what went out, and what went out covers the discount (ledger.ts), so this
 * never leaves less financed than was refunded, nor less than nothing: the lapse always applies.
 * NOTHING_DUE when the deadline has not passed.
 */
export function planExpiry(current: Current, ctx: PlanContext): Result<Plan> {
  const app = current.application;
  if (!lapsed(app, ctx.at)) return refused(NOTHING_DUE);
  if (app.state === "PROCESSING" && app.stateReason === "PROCESSING_REDIRECT_NEEDED") {
    return cancelEverything(current, "CANCELLED_EXPIRED", "APPLICATION_CANCELLED_EXPIRED", null, ctx);
  }
  if (app.state !== "READY" || !hasUnsentGoods(current.lines)) return refused(NOTHING_DUE);
  const lapse = current.lines.some(wentOut)
    ? cancelUnsent(current, ctx)
    : cancelEverything(current, "CANCELLED_EXPIRED", "APPLICATION_CANCELLED_EXPIRED", null, ctx);
  if (lapse.ok) return lapse;
  // Only an application refunded beyond what went out before refunds followed it: its goods stay, and
  // its deadline ends, so that the sweep does not find it due forever.
  return finish(current, { deadlines: { expiresAt: null, reminderAt: null } }, ctx);
}

/** The goods not yet sent CANCELLED, the rest as it is (the state follows from the lines). */
function cancelUnsent(current: Current, ctx: PlanContext): Result<Plan> {
  const change = applyToLines(
    current.lines,
    undefined,
    (l) => l.state === "PROCESSING" && !isDiscount(l),
    { state: "CANCELLED" },
    ctx.newId,
  );
  if (!change.ok) return change;
  const lines = settleDiscounts(change.value, current.application.refundedAmount);
  // One event even where the state and its reason stay (READY_SHIPPED): the order changed.
  return finish(current, { lines, movement: { attribute: "items" }, event: "APPLICATION_STATE_CHANGED" }, ctx);
}

/** Nothing is due: a deadline moved (an extension) or was met since the application was found due. */
const NOTHING_DUE: Problem = problem("NOTHING_DUE", "nothing is due for the application");

/** The reminder of an authorization that expires at `expiresAt`: one AUTHORIZATION_EXPIRING event, once. */
export function planReminder(current: Current, ctx: PlanContext): Result<Plan> {
  const app = current.application;
  if (app.state !== "READY" || app.reminderAt === null || app.reminderAt > ctx.at || lapsed(app, ctx.at)) {
    return refused(NOTHING_DUE);
  }
  return finish(current, { event: "AUTHORIZATION_EXPIRING", deadlines: { reminderAt: null } }, ctx);
}

/**
 * A manual review settles at `reviewAt`: to READY / READY_TO_SHIP (approved at the financed total, the
 * authorization starting now) or REJECTED. A partner's cancel during the review wins: the application
 * is no longer under review, and the settlement does nothing and sends nothing.
 */
export function planReviewSettlement(current: Current, ctx: PlanContext): Result<Plan> {
  const app = current.application;
  if (app.stateReason !== "PROCESSING_MANUAL_REVIEW" || app.reviewAt === null || app.reviewAt > ctx.at) {
    return refused(NOTHING_DUE);
  }
  const fields = { decidedAt: ctx.at, reviewOutcome: null };
  return app.reviewOutcome === "REJECT"
    ? finish(current, { next: { state: "REJECTED", stateReason: "REJECTED" }, fields }, ctx)
    : finish(current, { next: { state: "READY", stateReason: "READY_TO_SHIP" }, approve: true, fields }, ctx);
}

/**
 * Whatever is due for the application at `at`, one step: a lapse first (a reminder of a lapsed
 * authorization is moot), else a review's settlement, else the reminder. What the scheduled sweep and
 * a sandbox's advance of the clock apply, through the one write path.
 */
export function planDue(current: Current, ctx: PlanContext): Result<Plan> {
  for (const step of [planExpiry, planReviewSettlement, planReminder]) {
    const plan = step(current, ctx);
    if (plan.ok || plan.problems.some((p) => p.code !== "NOTHING_DUE")) return plan;
  }
  return refused(NOTHING_DUE);
}

/**
 * A payout holding the application's sales was paid (CONTRACT 6b): a READY application says so with
 * READY_PAID, once (stateAfterLines keeps it). Anything else has nothing to tell.
 */
export function planPaid(current: Current, ctx: PlanContext): Result<Plan> {
  const app = current.application;
  if (app.state !== "READY" || app.stateReason === "READY_PAID") return refused(NOTHING_DUE);
  return finish(current, { next: { state: "READY", stateReason: "READY_PAID" } }, ctx);
}

/**
 * The authorization of goods not yet sent, extended (CONTRACT 6a): `expiresAt` becomes now +
 * AUTHORIZATION_TTL_DAYS, never later than AUTHORIZATION_MAX_DAYS after the approval, and the reminder
 * is due again before the new deadline. Refused when the application is not READY
 * (APPLICATION_NOT_READY), its authorization already lapsed (AUTHORIZATION_EXPIRED), nothing is left
 * to send (NOTHING_TO_EXTEND), or the cap leaves nothing to add (EXTENSION_LIMIT_REACHED).
 */
export function planExtend(current: Current, ctx: PlanContext): Result<Plan> {
  const app = current.application;
  // An authorization that lapsed (the sweep cancelled its application) is AUTHORIZATION_EXPIRED, as
  // one found lapsed before the sweep ran: what the partner must learn is that the deadline passed.
  if (app.stateReason === "CANCELLED_EXPIRED") return refused(expiredProblem(app.expiresAt));
  const refusal = refusalOf("EXTEND", current);
  if (refusal) return refused(refusal);
  if (!hasUnsentGoods(current.lines) || app.expiresAt === null) {
    return refused(problem("NOTHING_TO_EXTEND", "every item is sent, delivered, returned or cancelled"));
  }
  if (lapsed(app, ctx.at)) return refused(expiredProblem(app.expiresAt));
  const { deadlines } = ctx;
  const cap = (app.decidedAt ?? ctx.at) + deadlines.authorizationMaxMs;
  if (cap <= app.expiresAt) {
    return refused(
      problem(
        "EXTENSION_LIMIT_REACHED",
        `an authorization lasts at most ${Math.round(deadlines.authorizationMaxMs / 86_400_000)} days after approval, until ${new Date(cap).toISOString()}`,
      ),
    );
  }
  // Never sooner than it was: extending on the day of approval keeps the approval's deadline, and its
  // reminder as it stands (re-armed, a reminder already sent would go out twice for one deadline).
  const expiresAt = Math.max(app.expiresAt, Math.min(ctx.at + deadlines.authorizationMs, cap));
  const kept = { expiresAt, reminderAt: app.reminderAt, reviewAt: app.reviewAt };
  return finish(current, { deadlines: expiresAt === app.expiresAt ? kept : authorization(expiresAt, deadlines) }, ctx);
}

/**
 * Sandbox only: the application's deadlines and pending review `seconds` closer (its approval too, so
 * that the extension's cap moves with them), then whatever became due, applied at once. With nothing
 * due, the time since it last changed grows by `seconds` too: the archive's age comes closer.
 */
export function planAdvance(current: Current, request: { seconds: number }, ctx: PlanContext): Result<Plan> {
  const app = current.application;
  const by = request.seconds * 1000;
  const closer = (t: number | null) => (t === null ? null : t - by);
  const shifted: Deadlines = {
    expiresAt: closer(app.expiresAt),
    reminderAt: closer(app.reminderAt),
    reviewAt: closer(app.reviewAt),
  };
  const moved: Current = { ...current, application: { ...app, ...shifted, decidedAt: closer(app.decidedAt) } };
  const due = planDue(moved, ctx);
  if (due.ok) {
    return ok({ ...due.value, application: { decidedAt: moved.application.decidedAt, ...due.value.application } });
  }
  if (due.problems.some((p) => p.code !== "NOTHING_DUE")) return due;
  return ok({
    application: {
      state: app.state,
      stateReason: app.stateReason,
      totalAmount: financedAmount(current.lines),
      approvedAmount: app.approvedAmount,
      refundedAmount: app.refundedAmount,
      eventSequence: app.eventSequence,
      contentBytes: app.contentBytes,
      decidedAt: moved.application.decidedAt,
      ...shifted,
      nextDueAt: nextDue(shifted),
      // Nothing changed but the clock: the time it has been idle grows by as much, so that the archive's
      // age (archive.ts) is reached as the deadlines are.
      idleSince: app.idleSince - by,
    },
  });
}
