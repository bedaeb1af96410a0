import {
  bearerSecurity,
  failures,
  IdempotencyHeaders,
  openApiRoute,
  type RouteDefinition,
  writeContent,
} from "../../api";
import { changeServices } from "../../api/application-change";
import { session } from "../../auth/require-session";
import { now } from "../../clock";
import { TOLD_PER_RUN, tellPayout } from "../../settlement/paid";
import { closeAndPayNow } from "../../settlement/payouts";
import examples from "../examples.json";
import { presentPayout } from "../payouts/present";
import { PaidPayouts } from "../payouts/schema";
import { sandboxOnly } from "./sandbox-only";

const route = {
  operationId: "closePayouts",
  method: "post",
  path: "/financing/v1/sandbox/payouts/close",
  tags: ["Sandbox"],
  summary: "Sandbox: close your payouts now and pay them",
  description:
    "Only where the service runs as a sandbox (SANDBOX on; 404 elsewhere): closes a payout of every entry not yet in one, per currency, as the daily cutoff would, and marks it PAID at once, as an operator would once the transfer arrived; its READY applications become READY_PAID, with their notifications. Answers the payouts paid (none where the entries add up to nothing positive). Test your reconciliation in minutes instead of a day.",
  security: bearerSecurity,
  middleware: [sandboxOnly],
  request: () => ({ headers: IdempotencyHeaders() }),
  responses: () => ({
    200: writeContent(PaidPayouts(), "The payouts closed and paid", examples.paidPayouts),
    ...failures({ body: true, idempotent: true }),
  }),
} satisfies RouteDefinition;

export const closePayouts = openApiRoute(route, async (c) => {
  const at = now();
  const db = await c.var.db.orm();
  const paid = await closeAndPayNow(db, c.var.db.client, session(c).partnerId, at);
  // The cron tells what is left of a large payout's applications.
  for (const payout of paid) await tellPayout({ ...changeServices(c), db }, payout.id, at, TOLD_PER_RUN);
  const timeZone = c.var.config.SERVICE_TIMEZONE;
  return c.json({ data: paid.map((payout) => presentPayout(payout, timeZone)) }, 200);
});
