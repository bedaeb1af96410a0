import { bearerSecurity, failures, jsonContent, openApiRoute, type RouteDefinition } from "../../api";
import { session } from "../../auth/require-session";
import { findPayout, payoutOfRow } from "../../db/settlement";
import { ApiError } from "../../http/errors";
import examples from "../examples.json";
import { presentPayout } from "./present";
import { Payout, PayoutIdParam } from "./schema";

const route = {
  operationId: "getPayout",
  method: "get",
  path: "/financing/v1/payouts/{payoutId}",
  tags: ["Payouts"],
  summary: "Read a payout",
  description:
    "One payout: its reference (the bank transfer's variable symbol), its cutoff, its totals and status. Its totals never change once it closed.",
  security: bearerSecurity,
  request: () => ({ params: PayoutIdParam() }),
  responses: () => ({ 200: jsonContent(Payout(), "The payout", examples.payout), ...failures() }),
} satisfies RouteDefinition;

export const getPayout = openApiRoute(route, async (c) => {
  const row = await findPayout(await c.var.db.orm(), session(c).partnerId, c.req.valid("param").payoutId);
  if (!row) throw ApiError.notFound("payout");
  return c.json(presentPayout(payoutOfRow(row), c.var.config.SERVICE_TIMEZONE), 200);
});
