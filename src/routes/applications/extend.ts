import {
  bearerSecurity,
  failures,
  IdempotencyHeaders,
  openApiRoute,
  type Refusals,
  type RouteDefinition,
  withRefusals,
  writeContent,
} from "../../api";
import { changeOrRefuse } from "../../api/application-change";
import { planExtend } from "../../domain/application-operations";
import examples from "../examples.json";
import { presentApplication, presentContext } from "./present";
import { Application, ApplicationIdParam } from "./schema";

const REFUSALS = {
  APPLICATION_NOT_READY: "not approved yet",
  APPLICATION_REJECTED: "",
  APPLICATION_ALREADY_CANCELLED: "",
  AUTHORIZATION_EXPIRED: "the authorization already lapsed",
  NOTHING_TO_EXTEND: "every item is sent or cancelled",
  EXTENSION_LIMIT_REACHED: "the authorization already runs until AUTHORIZATION_MAX_DAYS after approval",
} satisfies Refusals;

const route = {
  operationId: "extendAuthorization",
  method: "put",
  path: "/financing/v1/applications/{applicationId}/authorization/extend",
  tags: ["Applications"],
  summary: "Extend the authorization of goods not yet sent",
  description: withRefusals(
    "An approved application's goods not yet sent stay financed until `expiresAt` (AUTHORIZATION_TTL_DAYS, 28 days, after approval); then they lapse. Extending sets `expiresAt` to now + AUTHORIZATION_TTL_DAYS, never later than AUTHORIZATION_MAX_DAYS (180) after approval, and the AUTHORIZATION_EXPIRING reminder is sent again before the new deadline. No body. Answers the application. With an `Idempotency-Key` a retried call answers its first result.",
    REFUSALS,
  ),
  security: bearerSecurity,
  request: () => ({ params: ApplicationIdParam(), headers: IdempotencyHeaders() }),
  responses: () => ({
    200: writeContent(Application(), "The application with its new `expiresAt`", examples.extendedApplication),
    ...failures({ body: true, idempotent: true, guarded: true, refusals: REFUSALS }),
  }),
} satisfies RouteDefinition;

export const extendAuthorization = openApiRoute(route, async (c) => {
  const { aggregate } = await changeOrRefuse(c, c.req.valid("param").applicationId, planExtend);
  return c.json(await presentApplication(aggregate, presentContext(c)), 200);
});
