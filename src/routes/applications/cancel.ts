import { createRoute } from "@hono/zod-openapi";
import { planCancellation } from "../../domain/application-operations";
import { changeOrRefuse } from "../../http/application-change";
import { bearerSecurity, failures, IdempotencyHeaders, jsonBodyOf, router, writeContent } from "../../http/openapi";
import examples from "../examples.json";
import { presentApplication, presentContext } from "./present";
import { Application, ApplicationIdParam, CancelApplicationRequest } from "./schema";

const route = createRoute({
  operationId: "cancelApplication",
  method: "put",
  path: "/financing/v1/applications/{applicationId}/cancel",
  tags: ["Applications"],
  summary: "Cancel an application",
  description:
    "Allowed in PROCESSING, and in READY while no item is sent or delivered; the application becomes CANCELLED / CANCELLED_NOT_PAID and every line CANCELLED. `reason` defaults to APPLICATION_CANCELLED_OTHER. Refusals (422): APPLICATION_REJECTED, APPLICATION_ALREADY_CANCELLED, ORDER_ALREADY_SENT, REFUND_LIMIT_EXCEEDED (something was refunded).",
  security: bearerSecurity,
  request: {
    params: ApplicationIdParam,
    headers: IdempotencyHeaders,
    body: jsonBodyOf(CancelApplicationRequest, examples.cancelApplicationRequest),
  },
  responses: {
    200: writeContent(Application, "The cancelled application", examples.cancelledApplication),
    ...failures({
      body: true,
      idempotent: true,
      guarded: true,
      refusals: [
        "APPLICATION_REJECTED",
        "APPLICATION_ALREADY_CANCELLED",
        "ORDER_ALREADY_SENT",
        "REFUND_LIMIT_EXCEEDED",
      ],
    }),
  },
});

export const cancelApplication = router().openapi(route, async (c) => {
  const request = c.req.valid("json");
  const { aggregate } = await changeOrRefuse(c, c.req.valid("param").applicationId, (current, ctx) =>
    planCancellation(current, request, ctx),
  );
  return c.json(await presentApplication(aggregate, presentContext(c)), 200);
});
