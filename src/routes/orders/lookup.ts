import { bearerSecurity, failures, jsonContent, openApiRoute, type RouteDefinition } from "../../api";
import { session } from "../../auth/require-session";
import { aggregateOf } from "../../db/aggregate-row";
import { findOrder } from "../../db/applications";
import { presentedOrArchived } from "../../db/archive";
import { ApiError } from "../../http/errors";
import { presentContext, presentOrder } from "../applications/present";
import { OrderWithApplication } from "../applications/schema";
import examples from "../examples.json";
import { OrderLookupQuery } from "./schema";

const route = {
  operationId: "getOrder",
  method: "get",
  path: "/financing/v1/orders",
  tags: ["Orders"],
  summary: "Find an order",
  description:
    "One of your orders, in any state, with `applicationInfo`: by its `orderNumber`, one of its variable symbols (`orderVariableSymbol`) or its application's id (`applicationId`), at least one; every one given must match. When several applications match (an order number used again after a cancel), the latest created. 404 when none of yours does.",
  security: bearerSecurity,
  request: () => ({ query: OrderLookupQuery() }),
  responses: () => ({
    200: jsonContent(OrderWithApplication(), "The order, with its application's state", examples.sentOrder),
    ...failures(),
  }),
} satisfies RouteDefinition;

export const getOrder = openApiRoute(route, async (c) => {
  const { orderNumber, orderVariableSymbol, applicationId } = c.req.valid("query");
  if (orderNumber === undefined && orderVariableSymbol === undefined && applicationId === undefined) {
    throw ApiError.of([
      {
        code: "REQUIRED",
        message: "give at least one of orderNumber, orderVariableSymbol, applicationId",
        attribute: "orderNumber",
      },
    ]);
  }
  const found = await findOrder(await c.var.db.orm(), session(c).partnerId, {
    orderNumber,
    variableSymbol: orderVariableSymbol,
    applicationId,
  });
  if (!found) throw ApiError.notFound("order");
  return c.json(presentOrder(await presentedOrArchived(c.env.ARCHIVE, aggregateOf(found)), presentContext(c)), 200);
});
