import { bearerSecurity, failures, jsonContent, openApiRoute, type RouteDefinition } from "../../api";
import { session } from "../../auth/require-session";
import { keysetPage } from "../../collections/keyset";
import { pagingInfo } from "../../collections/links";
import { PageQuery, pageOf, parsePageRequest } from "../../collections/query";
import { applicationPayments, paymentsCollection } from "../../collections/settlement";
import { ownsApplication } from "../../db/applications";
import { ApiError, orRefuse } from "../../http/errors";
import { ApplicationIdParam } from "../applications/schema";
import examples from "../examples.json";
import { presentPayment } from "../payouts/present";
import { Payment } from "../payouts/schema";

const route = {
  operationId: "listPayments",
  method: "get",
  path: "/financing/v1/applications/{applicationId}/payments",
  tags: ["Payouts"],
  summary: "List an application's payments",
  description:
    "As Skip Pay's: the PAID payouts that paid the application's entries, by `paymentId` (the payout's id), each with what the application's entries add up to in it and the day it was paid. Empty until a payout holding them is paid.",
  security: bearerSecurity,
  request: () => ({ params: ApplicationIdParam(), query: PageQuery() }),
  responses: () => ({
    200: jsonContent(pageOf(Payment(), "PaymentPage"), "A page of payments", examples.paymentPage),
    ...failures(),
  }),
} satisfies RouteDefinition;

export const listPayments = openApiRoute(route, async (c) => {
  const { applicationId } = c.req.valid("param");
  const { partnerId } = session(c);
  const db = await c.var.db.orm();
  if (!(await ownsApplication(db, partnerId, applicationId))) throw ApiError.notFound("application");
  const collection = paymentsCollection(applicationId);
  const request = orRefuse(await parsePageRequest(collection, c.req.url, c.req.valid("query")));
  const page = orRefuse(await keysetPage(db, collection, applicationPayments(partnerId, applicationId), request));
  const timeZone = c.var.config.SERVICE_TIMEZONE;
  return c.json(
    {
      data: page.rows.map((row) => presentPayment(row, applicationId, timeZone)),
      pagingInfo: pagingInfo(new URL(c.req.url).pathname, request, page),
    },
    200,
  );
});
