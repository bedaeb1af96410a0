/**
 * The notification the service POSTs to `merchantUrls.notificationEndpoint` (CONTRACT 6), described
 * for the OpenAPI document's `webhooks`: what a partner's receiver gets and must answer. Sent by
 * src/notifications/consumer.ts.
 */
import { type RouteConfig, z } from "@hono/zod-openapi";
import { APPLICATION_STATES, STATE_REASONS } from "../../domain/application-state";
import { EVENT_TYPES } from "../../domain/plan";

const NotificationEvent = z
  .object({
    id: z.string().openapi({ description: "The application's id", example: "01JD3Z7Q9K4M2N8P5R6S7T8V9W" }),
    state: z.enum(APPLICATION_STATES),
    stateReason: z.enum(STATE_REASONS),
    eventId: z.string().openapi({
      description: "Deduplicate by this: delivery is at least once",
      example: "01JD4A1B2C3D4E5F6G7H8J9K0M",
    }),
    eventType: z.enum(EVENT_TYPES).openapi({
      description: "Accept types you do not know (answer 2xx): more may come",
    }),
    sequence: z.number().int().openapi({ description: "Grows by one per application: order by this" }),
    expiresAt: z.string().optional().openapi({
      format: "date-time",
      description:
        "The application's deadline when the event occurred, when one applies: the customer's (PROCESSING_REDIRECT_NEEDED) or the authorization of goods not yet sent (READY)",
      example: "2026-12-21T10:15:00+00:00",
    }),
    occurredAt: z.string().openapi({ format: "date-time", example: "2026-11-23T10:15:00+00:00" }),
  })
  .openapi("NotificationEvent");

const signatureHeaders = z.object({
  "webhook-id": z.string().openapi({ description: "Standard Webhooks: the eventId" }),
  "webhook-timestamp": z
    .string()
    .openapi({ description: "Standard Webhooks: Unix seconds when it was signed", example: "1763892900" }),
  "webhook-signature": z.string().openapi({
    description:
      "Standard Webhooks: `v1,` and the base64 HMAC-SHA256 of `webhook-id.webhook-timestamp.body` under the bytes of your `whsec_` secret; during a rotation two signatures, space-separated. Verify the raw body with a Standard Webhooks library before parsing it.",
    example: "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=",
  }),
  "X-Notification-Id": z.string().openapi({ description: "Legacy scheme: the eventId" }),
  "X-Notification-Timestamp": z.string().openapi({ description: "Legacy scheme: Unix seconds" }),
  "X-Notification-Signature": z.string().openapi({
    description: "Legacy scheme: `v1=` and the hex HMAC-SHA256 of `timestamp.body` under your API key",
    example: "v1=5f1c7a0e6b9d2c3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e",
  }),
});

const answer = (description: string) => ({ description });

const responses = {
  200: answer("Any 2xx answer within 10 seconds is a delivery; the body is ignored"),
  410: answer("Gone: no more deliveries of this event (it is marked FAILED)"),
  429: answer("Busy: the next attempt comes no sooner than your `Retry-After` (seconds or a date, at most 72 hours)"),
  503: answer("Unavailable: as 429"),
  default: answer("Anything else, a redirect or no answer in 10 seconds: sent again later"),
};

const eventBody = (example: Record<string, unknown>) => ({
  required: true,
  content: { "application/json": { schema: NotificationEvent, example } },
});

export const notificationWebhook: RouteConfig = {
  method: "post",
  path: "applicationStateChanged",
  operationId: "applicationStateChanged",
  tags: ["Notifications"],
  // Signed, not authenticated by a token: see the webhook-signature header.
  security: [],
  summary: "An application changed its state or state reason",
  description:
    "Sent to your `notificationEndpoint` for every change of `state` or `stateReason`, creation included. Answer any 2xx within 10 seconds; otherwise it is sent again for at least 72 hours (about 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, then every 12 h, each ±10 %).",
  request: {
    headers: signatureHeaders,
    body: eventBody({
      id: "01JD3Z7Q9K4M2N8P5R6S7T8V9W",
      state: "READY",
      stateReason: "READY_TO_SHIP",
      eventId: "01JD4A1B2C3D4E5F6G7H8J9K0M",
      eventType: "APPLICATION_STATE_CHANGED",
      sequence: 2,
      expiresAt: "2026-12-21T10:15:00+00:00",
      occurredAt: "2026-11-23T10:15:00+00:00",
    }),
  },
  responses,
};

export const authorizationExpiringWebhook: RouteConfig = {
  method: "post",
  path: "authorizationExpiring",
  operationId: "authorizationExpiring",
  tags: ["Notifications"],
  security: [],
  summary: "An authorization is about to lapse",
  description:
    "Sent once, AUTHORIZATION_REMINDER_DAYS (7) before `expiresAt` of an approved application with goods not yet sent (and again after each extension): send them, extend the authorization (PUT …/authorization/extend), or cancel. At `expiresAt` the goods not yet sent are cancelled (APPLICATION_STATE_CHANGED follows). Signed, retried and answered like every notification; `state` and `stateReason` are the application's at the time.",
  request: {
    headers: signatureHeaders,
    body: eventBody({
      id: "01JD3Z7Q9K4M2N8P5R6S7T8V9W",
      state: "READY",
      stateReason: "READY_TO_SHIP",
      eventId: "01JD6B2C3D4E5F6G7H8J9K0M1N",
      eventType: "AUTHORIZATION_EXPIRING",
      sequence: 3,
      expiresAt: "2026-12-21T10:15:00+00:00",
      occurredAt: "2026-12-14T10:15:00+00:00",
    }),
  },
  responses,
};
