import { bearerSecurity, failures, jsonContent, openApiRoute, type RouteDefinition } from "../../api";
import { session } from "../../auth/require-session";
import { formatDateTime, now } from "../../clock";
import { openBalance } from "../../db/settlement";
import { nextCutoff } from "../../settlement/payout-cutoff";
import examples from "../examples.json";
import { Balance } from "./schema";

const route = {
  operationId: "getBalance",
  method: "get",
  path: "/financing/v1/balance",
  tags: ["Payouts"],
  summary: "Read the balance",
  description:
    "What your entries not yet in a payout add up to, per currency, and when the next payout closes. A `net` of zero or less is not paid: it waits, with what comes later, for a payout that pays something.",
  security: bearerSecurity,
  responses: () => ({
    200: jsonContent(Balance(), "The open balance per currency", examples.balance),
    ...failures({ lookup: false }),
  }),
} satisfies RouteDefinition;

export const getBalance = openApiRoute(route, async (c) => {
  const { PAYOUT_CUTOFF_HOUR, SERVICE_TIMEZONE } = c.var.config;
  const nextCutoffAt = formatDateTime(nextCutoff(now(), PAYOUT_CUTOFF_HOUR, SERVICE_TIMEZONE), SERVICE_TIMEZONE);
  const balances = await openBalance(await c.var.db.orm(), session(c).partnerId);
  return c.json({ data: balances.map((b) => ({ ...b, nextCutoffAt })) }, 200);
});
