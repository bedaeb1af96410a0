import {
  bearerSecurity,
  failures,
  IdempotencyHeaders,
  openApiRoute,
  type RouteDefinition,
  writeContent,
} from "../../api";
import { session } from "../../auth/require-session";
import { now } from "../../clock";
import { ApiError } from "../../http/errors";
import { z } from "../../lazy-schema";
import { RESEND_LIMIT, RESEND_WINDOW_SECONDS, resendEvent } from "../../notifications/redelivery";
import { ApplicationIdParam } from "../applications/schema";
import examples from "../examples.json";
import { Notification, presentNotifications } from "./schema";

const route = {
  operationId: "resendNotification",
  method: "post",
  path: "/financing/v1/applications/{applicationId}/notifications/{eventId}/resend",
  tags: ["Notifications"],
  summary: "Send a notification again",
  description: `Puts the event back on the queue, whatever its status (a FAILED event gets a new retry schedule; a DELIVERED one is delivered once more). Answers 202 with the event as it is now; follow the delivery in the list. Limits: ${RESEND_LIMIT} resends per partner in any ${RESEND_WINDOW_SECONDS} seconds (more answers 429 with \`Retry-After\`; many events at once are a replay's), and a DELIVERED event is sent again at most once an hour (by this or by a replay): sooner answers 429 with \`Retry-After\`.`,
  security: bearerSecurity,
  request: () => ({
    headers: IdempotencyHeaders(),
    params: ApplicationIdParam().extend({
      eventId: z
        .string()
        .max(64)
        .openapi({ param: { name: "eventId", in: "path" } }),
    }),
  }),
  responses: () => ({
    202: writeContent(Notification(), "Queued", examples.notificationPage.data[0]),
    ...failures({ body: true, idempotent: true }),
  }),
} satisfies RouteDefinition;

export const resendNotification = openApiRoute(route, async (c) => {
  const { applicationId, eventId } = c.req.valid("param");
  const result = await resendEvent(c.env, c.var.db, session(c).partnerId, applicationId, eventId, now());
  if (result.outcome === "not_found") throw ApiError.notFound(result.what);
  if (result.outcome === "limited") {
    throw new ApiError(
      "rate_limit_exceeded",
      `at most ${RESEND_LIMIT} resends in ${RESEND_WINDOW_SECONDS} seconds; retry after Retry-After seconds, or replay many events at once`,
      undefined,
      { "Retry-After": String(result.retryAfter) },
    );
  }
  if (result.outcome === "too_soon") {
    throw new ApiError(
      "rate_limit_exceeded",
      "this notification was delivered and already sent again within the hour; retry after Retry-After seconds",
      undefined,
      { "Retry-After": String(result.retryAfter) },
    );
  }
  const [view] = presentNotifications([result.event], result.attempts, c.var.config.SERVICE_TIMEZONE);
  return c.json(view!, 202);
});
