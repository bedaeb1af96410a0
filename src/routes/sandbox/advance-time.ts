import {
  bearerSecurity,
  failures,
  IdempotencyHeaders,
  jsonBodyOf,
  openApiRoute,
  type RouteDefinition,
  writeContent,
} from "../../api";
import { changeOrRefuse } from "../../api/application-change";
import { planAdvance } from "../../domain/application-operations";
import { schema, z } from "../../lazy-schema";
import { presentApplication, presentContext } from "../applications/present";
import { Application, ApplicationIdParam } from "../applications/schema";
import examples from "../examples.json";
import { sandboxOnly } from "./sandbox-only";

/** 400 days: past any deadline there is (an authorization lasts at most 180 days). */
const MAX_SECONDS = 400 * 86_400;

const AdvanceTimeRequest = schema(() =>
  z
    .object({
      seconds: z
        .number()
        .int("must be an integer")
        .min(1)
        .max(MAX_SECONDS)
        .openapi({ description: `How far to move the application's clock, 1 to ${MAX_SECONDS} (400 days)` }),
    })
    .openapi("AdvanceTimeRequest"),
);

const route = {
  operationId: "advanceTime",
  method: "post",
  path: "/financing/v1/sandbox/applications/{applicationId}/advance-time",
  tags: ["Sandbox"],
  summary: "Sandbox: move an application's clock forward",
  description:
    "Only where the service runs as a sandbox (SANDBOX on; 404 elsewhere): moves this application's deadlines and pending manual review `seconds` closer, then applies at once whatever became due, with its notifications, as the scheduled sweep would: the customer's deadline lapsing, the AUTHORIZATION_EXPIRING reminder, the authorization lapsing, a review settling. With nothing due, the time since the application last changed grows by as much: a finished application reaches the archive's age (ARCHIVE_AFTER_DAYS) and the next scheduled run archives it. Answers the application. Test what your integration does on day 21, 28 or 180 without waiting for it.",
  security: bearerSecurity,
  middleware: [sandboxOnly],
  request: () => ({
    params: ApplicationIdParam(),
    headers: IdempotencyHeaders(),
    body: jsonBodyOf(AdvanceTimeRequest(), examples.advanceTimeRequest),
  }),
  responses: () => ({
    200: writeContent(Application(), "The application after the time passed", examples.extendedApplication),
    ...failures({ body: true, idempotent: true, guarded: true }),
  }),
} satisfies RouteDefinition;

export const advanceTime = openApiRoute(route, async (c) => {
  const { seconds } = c.req.valid("json");
  const { aggregate } = await changeOrRefuse(c, c.req.valid("param").applicationId, (current, ctx) =>
    planAdvance(current, { seconds }, ctx),
  );
  return c.json(await presentApplication(aggregate, presentContext(c)), 200);
});
