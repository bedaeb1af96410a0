import { Hono } from "hono";
import { now, today } from "../clock";
import { urlPolicy } from "../config";
import type { CustomerAnswer } from "../domain/application-operations";
import { outcomeOf, outcomeRedirect } from "../domain/customer-outcome";
import type { HonoEnv } from "../env";
import { errorPage } from "./errors";
import { GATEWAY_PATH, gatewayOwner } from "./load";
import { offerPage, outcomePage } from "./show";

/**
 * POST: confirm or cancel, then 303 back to the shop. A second submit (double click, back button,
 * two tabs racing) finds the application no longer PROCESSING and only redirects: a lost race re-reads
 * the state, so exactly one submit decides. An answer to an offer that has changed since the page was
 * shown (the form's `offer` token, src/domain/offer.ts) decides nothing: the new offer is shown, 409.
 */
export const submitGateway = new Hono<HonoEnv>().post(GATEWAY_PATH, async (c) => {
  const { applicationId, token } = c.req.param();
  const owner = await gatewayOwner(c, applicationId, token);
  if (!owner) return errorPage(c, 404);
  let form: Record<string, unknown>;
  try {
    form = await c.req.parseBody();
  } catch {
    // A form that does not parse (broken multipart, a body cut short) is the client's: a 400 page.
    return errorPage(c, 400);
  }
  const action = form.action;
  if (action !== "confirm" && action !== "cancel") return errorPage(c, 400);
  const cfg = c.var.config;
  const answer: CustomerAnswer = {
    action,
    agreedNow: form.agreement === "yes",
    limits: cfg.DECISION_LIMITS,
    offer: typeof form.offer === "string" ? form.offer : undefined,
    termsDate: today(cfg.SERVICE_TIMEZONE),
    sandbox: cfg.SANDBOX,
    reviewMs: cfg.SANDBOX_REVIEW_SECONDS * 1000,
  };

  // No partner session here: the token proved which partner's application this is.
  const { answerOffer } = await import("./answer");
  const result = await answerOffer(c, owner.partnerId, applicationId, answer);
  if (result.outcome === "not_found") return errorPage(c, 404);
  const app = result.outcome === "written" ? result.aggregate.application : result.current.application;
  // Refused while the offer still waits for the customer: it changed (or kept changing), so nothing
  // was decided and the offer as it is now is shown. Refused otherwise: the customer already answered,
  // or their time ran out; either way they see where it led.
  if (result.outcome === "refused" && !outcomeOf(app, now())) return offerPage(c, owner, result.current, true);
  const back = outcomeRedirect(app, urlPolicy(cfg));
  return back ? c.redirect(back, 303) : outcomePage(c, owner, app);
});
