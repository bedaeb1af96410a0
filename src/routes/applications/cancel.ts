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
import { planCancellation } from "../../domain/application-operations";
import examples from "../examples.json";
import { presentApplication, presentContext } from "./present";
import { Application, ApplicationIdParam, CancelApplicationRequest } from "./schema";

const REFUSALS = {
  APPLICATION_REJECTED: "",
  APPLICATION_ALREADY_CANCELLED: "",
  ORDER_ALREADY_SENT: "",
  REFUND_LIMIT_EXCEEDED: "something was refunded",
} satisfies Refusals;

const route = {
  operationId: "cancelApplication",
  method: "put",
  path: "/financing/v1/applications/{applicationId}/cancel",
  tags: ["Applications"],
  summary: "Cancel an application",
  description: withRefusals(
    "Allowed in PROCESSING, and in READY while no item is sent or delivered; the application becomes CANCELLED / CANCELLED_NOT_PAID and every line CANCELLED. `reason` defaults to APPLICATION_CANCELLED_OTHER.",
    REFUSALS,
  ),
  security: bearerSecurity,
  request: () => ({
    params: ApplicationIdParam(),
    headers: IdempotencyHeaders(),
    body: jsonBodyOf(CancelApplicationRequest(), examples.cancelApplicationRequest),
  }),
  responses: () => ({
    200: writeContent(Application(), "The cancelled application", examples.cancelledApplication),
    ...failures({
      body: true,
      idempotent: true,
      guarded: true,
      refusals: REFUSALS,
    }),
  }),
} satisfies RouteDefinition;

export const cancelApplication = openApiRoute(route, async (c) => {
  const request = c.req.valid("json");
  const { aggregate } = await changeOrRefuse(c, c.req.valid("param").applicationId, (current, ctx) =>
    planCancellation(current, request, ctx),
  );
  return c.json(await presentApplication(aggregate, presentContext(c)), 200);
});
