import { Hono } from "hono";
import { config } from "../config";
import type { Aggregate } from "../db/applications";
import { type DecisionLimits, decide } from "../domain/decision";
import type { HonoEnv } from "../env";
import { assertPermitted, cancellationPlan, operate, type Plan } from "../routes/applications/operate";
import { errorPage } from "./errors";
import { GATEWAY_PATH, gatewayOwner } from "./load";
import { outcomeRedirect } from "./outcome";

/**
 * The customer's confirm runs the credit decision (CONTRACT 6). The agreement counts when the partner
 * sent it or the customer ticks it now; ticking it is recorded, whatever the outcome.
 */
export function decisionPlan(current: Aggregate, at: number, agreedNow: boolean, limits: DecisionLimits): Plan {
  assertPermitted("DECIDE", current);
  const app = current.application;
  const agreement = app.agreementTermsAndConditions || agreedNow;
  const decision = decide(
    {
      type: app.type,
      totalAmount: app.totalAmount,
      currency: app.currency,
      customerEmail: app.customerEmail,
      agreementTermsAndConditions: agreement,
    },
    limits,
  );
  const audit = {
    decisionReasons: decision.reasons,
    decidedAt: at,
    ...(agreement && !app.agreementTermsAndConditions ? { agreementTermsAndConditions: true } : {}),
  };
  return decision.outcome === "APPROVED"
    ? { patch: { ...audit, state: "READY", stateReason: "READY_TO_SHIP", approvedAmount: app.totalAmount } }
    : { patch: { ...audit, state: "REJECTED", stateReason: "REJECTED" } };
}

/** Thrown out of `operate` to write nothing: the customer's answer was already taken. */
class AlreadyAnswered extends Error {
  constructor(readonly aggregate: Aggregate) {
    super("application no longer waits for the customer");
  }
}

/**
 * POST: confirm or cancel, then 303 back to the shop. A second submit (double click, back button,
 * two tabs racing) finds the application no longer PROCESSING and only redirects: `operate` re-reads
 * the state on a lost race, so exactly one submit decides.
 */
export const submitGateway = new Hono<HonoEnv>().post(GATEWAY_PATH, async (c) => {
  const { applicationId, token } = c.req.param();
  const owner = await gatewayOwner(c, applicationId, token);
  if (!owner) return errorPage(c, 404);
  const form = await c.req.parseBody();
  const action = form.action;
  if (action !== "confirm" && action !== "cancel") return errorPage(c, 400);
  const agreedNow = form.agreement === "yes";
  const limits = config(c.env).DECISION_LIMITS;

  let answered: Aggregate;
  try {
    answered = await operate(
      c,
      applicationId,
      (current, at) => {
        // Not assertPermitted alone: CANCEL is allowed in READY, but the customer's say ends with the decision.
        if (current.application.state !== "PROCESSING") throw new AlreadyAnswered(current);
        return action === "confirm"
          ? decisionPlan(current, at, agreedNow, limits)
          : cancellationPlan(current, "APPLICATION_CANCELLED_BY_CUSTOMER");
      },
      // No partner session here: the token proved which partner's application this is.
      owner.partnerId,
    );
  } catch (error) {
    if (!(error instanceof AlreadyAnswered)) throw error;
    answered = error.aggregate;
  }
  return c.redirect(outcomeRedirect(answered.application), 303);
});
