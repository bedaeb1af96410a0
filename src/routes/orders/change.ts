import {
  bearerSecurity,
  failures,
  IdempotencyHeaders,
  jsonBodyOf,
  openApiRoute,
  type Refusals,
  type RouteDefinition,
  withRefusals,
  writeContent,
} from "../../api";
import { changeOrRefuse } from "../../api/application-change";
import { ORDER_CONSISTENCY_CODES, orderConsistencyProblems } from "../../domain/money";
import { planChange } from "../../domain/order-operations";
import { ApiError } from "../../http/errors";
import { presentApplication, presentContext } from "../applications/present";
import { Application, ApplicationIdParam } from "../applications/schema";
import examples from "../examples.json";
import { ChangeOrderRequest } from "./schema";

const REFUSALS = {
  APPLICATION_NOT_READY: "under manual review: the order stays as the customer agreed it",
  AUTHORIZATION_EXPIRED: "the customer's deadline, or the authorization, has passed",
  ORDER_ALREADY_SENT: "",
  APPLICATION_REJECTED: "",
  APPLICATION_ALREADY_CANCELLED: "",
  TOTAL_PRICE_LIMIT_EXCEEDED: "",
  REFUND_LIMIT_EXCEEDED: "refunds made before refunds followed what went out",
  APPLICATION_SIZE_LIMIT_REACHED: "the new order holds more than the 256 KiB of content an application may",
} satisfies Refusals;

const route = {
  operationId: "changeOrder",
  method: "put",
  path: "/financing/v1/applications/{applicationId}/order",
  tags: ["Orders"],
  summary: "Change the order",
  description: withRefusals(
    "Replaces the order's items and totals (same consistency rules as at creation, same currency). Allowed in PROCESSING and READY while no item is sent or delivered; once approved the total may not rise above the approved total.",
    REFUSALS,
  ),
  security: bearerSecurity,
  request: () => ({
    params: ApplicationIdParam(),
    headers: IdempotencyHeaders(),
    body: jsonBodyOf(ChangeOrderRequest(), examples.changeOrderRequest),
  }),
  responses: () => ({
    200: writeContent(Application(), "The application with the new order", examples.changedApplication),
    ...failures({
      body: true,
      idempotent: true,
      guarded: true,
      invalid: [...ORDER_CONSISTENCY_CODES],
      refusals: REFUSALS,
    }),
  }),
} satisfies RouteDefinition;

export const changeOrder = openApiRoute(route, async (c) => {
  const request = c.req.valid("json");
  const problems = orderConsistencyProblems(request.order);
  if (problems.length > 0) throw ApiError.of(problems);
  const { aggregate } = await changeOrRefuse(c, c.req.valid("param").applicationId, (current, ctx) =>
    planChange(current, request, ctx),
  );
  return c.json(await presentApplication(aggregate, presentContext(c)), 200);
});
