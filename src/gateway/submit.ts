import { Hono } from "hono";
import { attempt } from "../applications/operate";
import { config, urlPolicy } from "../config";
import { planCustomerAnswer } from "../domain/application-operations";
import type { HonoEnv } from "../env";
import { errorPage } from "./errors";
import { GATEWAY_PATH, gatewayOwner } from "./load";
import { outcomeRedirect } from "./outcome";
import { outcomePage } from "./show";

/**
 * POST: confirm or cancel, then 303 back to the shop. A second submit (double click, back button,
 * two tabs racing) finds the application no longer PROCESSING and only redirects: a lost race re-reads
 * the state, so exactly one submit decides.
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
  const request = { action, agreedNow: form.agreement === "yes", limits: config(c.env).DECISION_LIMITS } as const;

  // No partner session here: the token proved which partner's application this is.
  const result = await attempt(c, owner.partnerId, applicationId, (current, ctx) =>
    planCustomerAnswer(current, request, ctx),
  );
  if (result.outcome === "not_found") return errorPage(c, 404);
  // Refused: the customer already answered; either way they see where their answer led.
  const app = result.outcome === "written" ? result.aggregate.application : result.current.application;
  const back = outcomeRedirect(app, urlPolicy(config(c.env)));
  return back ? c.redirect(back, 303) : outcomePage(c, owner, app);
});
