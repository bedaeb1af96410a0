import { bearerSecurity, failures, jsonContent, openApiRoute, type RouteDefinition } from "../../api";
import { session } from "../../auth/require-session";
import { keysetPage } from "../../collections/keyset";
import { pagingInfo } from "../../collections/links";
import { pageOf, parsePageRequest } from "../../collections/query";
import { partnerPayouts, payoutsCollection } from "../../collections/settlement";
import { payoutOfRow } from "../../db/settlement";
import { orRefuse } from "../../http/errors";
import examples from "../examples.json";
import { presentPayout } from "./present";
import { Payout, PayoutsQuery } from "./schema";

const route = {
  operationId: "listPayouts",
  method: "get",
  path: "/financing/v1/payouts",
  tags: ["Payouts"],
  summary: "List payouts",
  description:
    "Your payouts, oldest first unless sorted: one per currency each day at the cutoff, of every entry not yet paid, when they add up to more than zero. Its `reference` is the variable symbol of the bank transfer.",
  security: bearerSecurity,
  request: () => ({ query: PayoutsQuery() }),
  responses: () => ({
    200: jsonContent(pageOf(Payout(), "PayoutPage"), "A page of payouts", examples.payoutPage),
    ...failures({ lookup: false }),
  }),
} satisfies RouteDefinition;

export const listPayouts = openApiRoute(route, async (c) => {
  const db = await c.var.db.orm();
  const request = orRefuse(await parsePageRequest(payoutsCollection, c.req.url, c.req.valid("query")));
  const page = orRefuse(await keysetPage(db, payoutsCollection, partnerPayouts(session(c).partnerId), request));
  const timeZone = c.var.config.SERVICE_TIMEZONE;
  return c.json(
    {
      data: page.rows.map((row) => presentPayout(payoutOfRow(row), timeZone)),
      pagingInfo: pagingInfo(new URL(c.req.url).pathname, request, page),
    },
    200,
  );
});
