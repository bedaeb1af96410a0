/**
 * The operations on the application as a whole as plans: the credit decision, the cancellation, and
 * the customer's one answer at the gateway. Pure: no HTTP, no SQL.
 */
import type { CancelReason } from "./application-state";
import { type DecisionLimits, decide } from "./decision";
import { offerOf, offerToken } from "./offer";
import { applyToLines, financedAmount } from "./order-lines";
import { type Current, finish, type Plan, type PlanContext, refusalOf } from "./plan";
import { problem, type Result, refused } from "./result";

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
