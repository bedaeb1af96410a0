import { z } from "@hono/zod-openapi";
import { session } from "../../auth/require-session";
import { now } from "../../clock";
import { ownsApplication } from "../../db/applications";
import { database } from "../../db/client";
import { attemptsOf, requeueEvent } from "../../db/events";
import { ApiError } from "../../http/errors";
import {
  bearerSecurity,
  failures,
  IdempotencyHeaders,
  openApiRoute,
  type RouteDefinition,
  writeContent,
} from "../../http/openapi";
import { ApplicationIdParam } from "../applications/schema";
import examples from "../examples.json";
import { Notification, presentNotifications } from "./schema";

const route = {
  operationId: "resendNotification",
  method: "post",
  path: "/financing/v1/applications/{applicationId}/notifications/{eventId}/resend",
  tags: ["Notifications"],
  summary: "Send a notification again",
  description:
    "Puts the event back on the queue, whatever its status (a FAILED event gets a new retry schedule; a DELIVERED one is delivered once more). Answers 202 with the event as it is now; follow the delivery in the list. A DELIVERED event is sent again at most once an hour (by this or by a replay): sooner answers 429 with `Retry-After`.",
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
  const db = database(c.env);
  if (!(await ownsApplication(db, session(c).partnerId, applicationId))) throw ApiError.notFound("application");
  const at = now();
  const event = await requeueEvent(db, applicationId, eventId, at);
  if (!event) throw ApiError.notFound("notification");
  if ("tooSoonUntil" in event) {
    const retryAfter = Math.max(1, Math.ceil((event.tooSoonUntil - at) / 1000));
    throw new ApiError(
      "rate_limit_exceeded",
      "this notification was delivered and already sent again within the hour; retry after Retry-After seconds",
      undefined,
      { "Retry-After": String(retryAfter) },
    );
  }
  // Awaited, not deferred: a resend that did not reach the queue must not answer 202.
  await c.env.NOTIFICATIONS.send({ eventId, due: at });
  const [view] = presentNotifications([event], await attemptsOf(db, [eventId]), c.var.config.SERVICE_TIMEZONE);
  return c.json(view!, 202);
});
