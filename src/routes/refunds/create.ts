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
import { planRefund } from "../../domain/order-operations";
import { ApplicationIdParam } from "../applications/schema";
import examples from "../examples.json";
import { presentRefund } from "./present";
import { Refund, RefundRequest } from "./schema";

const REFUSALS = {
  APPLICATION_NOT_READY: "",
  APPLICATION_REJECTED: "",
  APPLICATION_ALREADY_CANCELLED: "",
  REFUND_LIMIT_EXCEEDED:
    "below 1, or above what is refundable: what went out less refunds, nothing before goods are sent",
} satisfies Refusals;

const route = {
  operationId: "createRefund",
  method: "post",
  path: "/financing/v1/applications/{applicationId}/refunds",
  tags: ["Refunds"],
  summary: "Create a refund",
  description: withRefusals(
    "Refunds an arbitrary amount (goodwill, repeated partial refunds) without changing items or order state. Needs state READY. A refund above the order's `refundablePrice` is refused whole; concurrent refunds never exceed it together.",
    REFUSALS,
  ),
  security: bearerSecurity,
  request: () => ({
    params: ApplicationIdParam(),
    headers: IdempotencyHeaders(),
    body: jsonBodyOf(RefundRequest(), examples.refundRequest),
  }),
  responses: () => ({
    201: writeContent(Refund(), "The refund", examples.refund),
    ...failures({
      body: true,
      idempotent: true,
      guarded: true,
      invalid: ["CURRENCY_MISMATCH"],
      refusals: REFUSALS,
    }),
  }),
} satisfies RouteDefinition;

export const createRefund = openApiRoute(route, async (c) => {
  const request = c.req.valid("json");
  const { plan } = await changeOrRefuse(c, c.req.valid("param").applicationId, (current, ctx) =>
    planRefund(current, request, ctx),
  );
  return c.json(presentRefund(plan.refund!, c.var.config.SERVICE_TIMEZONE), 201);
});
