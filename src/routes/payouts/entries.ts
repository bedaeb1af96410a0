import { bearerSecurity, failures, jsonContent, openApiRoute, type RouteDefinition } from "../../api";
import { session } from "../../auth/require-session";
import { keysetPage } from "../../collections/keyset";
import { pagingInfo } from "../../collections/links";
import { PageQuery, pageOf, parsePageRequest } from "../../collections/query";
import { payoutEntriesCollection, payoutEntriesOf } from "../../collections/settlement";
import { findPayout } from "../../db/settlement";
import { ApiError, orRefuse } from "../../http/errors";
import examples from "../examples.json";
import { presentEntry } from "./present";
import { PayoutIdParam, SettlementEntry } from "./schema";

const route = {
  operationId: "listPayoutEntries",
  method: "get",
  path: "/financing/v1/payouts/{payoutId}/entries",
  tags: ["Payouts"],
  summary: "List a payout's entries",
  description:
    "What the payout paid, in the order entered: each sale with its fee and the fee's VAT, and each refund, with the order, shipment and refund it belongs to. Their amounts add up to the payout's `net`. A FAILED payout still lists what it held (those entries went to a later payout).",
  security: bearerSecurity,
  request: () => ({ params: PayoutIdParam(), query: PageQuery() }),
  responses: () => ({
    200: jsonContent(
      pageOf(SettlementEntry(), "SettlementEntryPage"),
      "A page of the payout's entries",
      examples.payoutEntryPage,
    ),
    ...failures(),
  }),
} satisfies RouteDefinition;

export const listPayoutEntries = openApiRoute(route, async (c) => {
  const { payoutId } = c.req.valid("param");
  const db = await c.var.db.orm();
  if (!(await findPayout(db, session(c).partnerId, payoutId))) throw ApiError.notFound("payout");
  const request = orRefuse(await parsePageRequest(payoutEntriesCollection, c.req.url, c.req.valid("query")));
  const page = orRefuse(await keysetPage(db, payoutEntriesCollection, payoutEntriesOf(payoutId), request));
  const timeZone = c.var.config.SERVICE_TIMEZONE;
  return c.json(
    {
      data: page.rows.map((row) => presentEntry(row, timeZone)),
      pagingInfo: pagingInfo(new URL(c.req.url).pathname, request, page),
    },
    200,
  );
});
