import { bearerSecurity, failures, jsonContent, openApiRoute, type RouteDefinition } from "../../api";
import { session } from "../../auth/require-session";
import { keysetPage } from "../../collections/keyset";
import { pagingInfo } from "../../collections/links";
import { PageQuery, pageOf, parsePageRequest } from "../../collections/query";
import { applicationRefunds, refundsCollection } from "../../collections/refunds";
import { ownsApplication } from "../../db/applications";
import type { RefundRecord } from "../../domain/plan";
import { ApiError, orRefuse } from "../../http/errors";
import { ApplicationIdParam } from "../applications/schema";
import examples from "../examples.json";
import { presentRefund } from "./present";
import { Refund } from "./schema";

const route = {
  operationId: "listRefunds",
  method: "get",
  path: "/financing/v1/applications/{applicationId}/refunds",
  tags: ["Refunds"],
  summary: "List refunds",
  description:
    "Every refund of the application, those created by returns (`origin` RETURN) and directly (REFUND), oldest first, paged like every collection.",
  security: bearerSecurity,
  request: () => ({ params: ApplicationIdParam(), query: PageQuery() }),
  responses: () => ({
    200: jsonContent(pageOf(Refund(), "RefundPage"), "A page of refunds", examples.refundPage),
    ...failures(),
  }),
} satisfies RouteDefinition;

export const listRefunds = openApiRoute(route, async (c) => {
  const { applicationId } = c.req.valid("param");
  const db = await c.var.db.orm();
  if (!(await ownsApplication(db, session(c).partnerId, applicationId))) throw ApiError.notFound("application");
  const request = orRefuse(await parsePageRequest(refundsCollection, c.req.url, c.req.valid("query")));
  const page = orRefuse(await keysetPage(db, refundsCollection, applicationRefunds(applicationId), request));
  const timeZone = c.var.config.SERVICE_TIMEZONE;
  return c.json(
    {
      data: page.rows.map((row) => presentRefund(row as RefundRecord, timeZone)),
      pagingInfo: pagingInfo(new URL(c.req.url).pathname, request, page),
    },
    200,
  );
});
