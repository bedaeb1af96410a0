import { Hono } from "hono";
import { attempt } from "../applications/operate";
import { config } from "../config";
import { planCustomerAnswer } from "../domain/application-operations";
import type { HonoEnv } from "../env";
import { errorPage } from "./errors";
import { GATEWAY_PATH, gatewayOwner } from "./load";
import { outcomeRedirect } from "./outcome";

/**
 * POST: confirm or cancel, then 303 back to the shop. A second submit (double click, back button,
 * two tabs racing) finds the application no longer PROCESSING and only redirects: a lost race re-reads
 * the state, so exactly one submit decides.
 */
export const submitGateway = new Hono<HonoEnv>().post(GATEWAY_PATH, async (c) => {
  const { applicationId, token } = c.req.param();
  const owner = await gatewayOwner(c, applicationId, token);
  if (!owner) return errorPage(c, 404);
  const form = await c.req.parseBody();
  const action = form.action;
  if (action !== "confirm" && action !== "cancel") return errorPage(c, 400);
  const request = { action, agreedNow: form.agreement === "yes", limits: config(c.env).DECISION_LIMITS } as const;

  // No partner session here: the token proved which partner's application this is.
  const result = await attempt(c, owner.partnerId, applicationId, (current, ctx) =>
    planCustomerAnswer(current, request, ctx),
  );
  switch (result.outcome) {
    case "not_found":
      return errorPage(c, 404);
    case "refused":
      // The customer already answered: show them where that answer led.
      return c.redirect(outcomeRedirect(result.current.application), 303);
    case "written":
      return c.redirect(outcomeRedirect(result.aggregate.application), 303);
  }
});
