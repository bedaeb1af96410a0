import {
  bearerSecurity,
  failures,
  IdempotencyHeaders,
  jsonBodyOf,
  openApiRoute,
  type RouteDefinition,
  withDefault,
  writeContent,
} from "../../api";
import { REQUEST_RULES } from "../../api/request-rules";
import { session } from "../../auth/require-session";
import { now } from "../../clock";
import { ApiError } from "../../http/errors";
import { schema, z } from "../../lazy-schema";
import { MAX_REPLAY, REPLAY_INTERVAL_SECONDS, replay } from "../../notifications/redelivery";
import { DateTimeInput } from "../applications/schema";
import examples from "../examples.json";

const ReplayRequest = schema(() =>
  z
    .object({
      status: withDefault(
        z.enum(["FAILED", "DELIVERED"]),
        "FAILED",
        "Which events to send again: FAILED (after an outage) or DELIVERED (to rebuild a receiver's state)",
      ),
      from: DateTimeInput().openapi({ description: "Events that occurred at or after this instant" }),
      to: DateTimeInput().optional().openapi({ description: "… and before this one (default: now)" }),
      applicationId: z.string().min(1).max(64).optional().openapi({ description: "Only this application's events" }),
    })
    .refine(REQUEST_RULES.endsAfterStart, {
      path: ["to"],
      message: "must be after from",
      params: { code: "INVALID_VALUE" },
    })
    .openapi("ReplayRequest"),
);

const ReplayResult = schema(() =>
  z
    .object({
      replayed: z
        .number()
        .int()
        .openapi({ description: `How many events were put back in delivery (at most ${MAX_REPLAY})` }),
      more: z.boolean().openapi({ description: "True when more events match: call again to replay them" }),
    })
    .openapi("ReplayResult"),
);

const route = {
  operationId: "replayNotifications",
  method: "post",
  path: "/financing/v1/notifications/replay",
  tags: ["Notifications"],
  summary: "Send many notifications again",
  description: `Puts the partner's events of one status that occurred in a time range (optionally of one application) back in delivery, each with a new retry schedule, oldest first and at most ${MAX_REPLAY} per call; answers 202 with how many. Replaying FAILED events twice sends nothing the second time (they are no longer FAILED); with an \`Idempotency-Key\` a retried call answers its first result. An event being delivered right now is left to that delivery. Limits: one call per partner every ${REPLAY_INTERVAL_SECONDS} seconds (sooner answers 429 with \`Retry-After\`), and a DELIVERED event is sent again at most once an hour (by a replay or a resend; one sent again within the hour is left out).`,
  security: bearerSecurity,
  request: () => ({ headers: IdempotencyHeaders(), body: jsonBodyOf(ReplayRequest(), examples.replayRequest) }),
  responses: () => ({
    202: writeContent(ReplayResult(), "Queued", examples.replayResult),
    ...failures({ body: true, idempotent: true, lookup: false }),
  }),
} satisfies RouteDefinition;

export const replayNotifications = openApiRoute(route, async (c) => {
  const { status, from, to, applicationId } = c.req.valid("json");
  const at = now();
  const selection = {
    partnerId: session(c).partnerId,
    status,
    from: Date.parse(from),
    to: to === undefined ? at + 1 : Date.parse(to),
    applicationId,
  };
  const result = await replay(c.env, c.var.db, selection, at);
  if (result.outcome === "too_soon") {
    throw new ApiError(
      "rate_limit_exceeded",
      `one replay per ${REPLAY_INTERVAL_SECONDS} seconds; retry after Retry-After seconds`,
      undefined,
      { "Retry-After": String(result.retryAfter) },
    );
  }
  return c.json({ replayed: result.replayed, more: result.more }, 202);
});
