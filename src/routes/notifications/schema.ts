import { formatDateTime } from "../../clock";
import { PageQuery } from "../../collections/query";
import type { AttemptRow } from "../../db/events";
import type { EventRow } from "../../db/schema";
import { APPLICATION_STATES, STATE_REASONS } from "../../domain/application-state";
import { DELIVERY_STATUSES } from "../../domain/notification-schedule";
import { EVENT_TYPES } from "../../domain/plan";
import { type Infer, schema, z } from "../../lazy-schema";
import { DateTimeOutput } from "../applications/schema";

/** The delivery log's query: a page's, with the sorts and filters the log offers (src/collections/notifications.ts). */
export const NotificationsQuery = schema(() =>
  PageQuery().extend({
    sort: PageQuery().shape.sort.openapi({
      description: "Comma-separated attributes, `-` for descending: id (the order events happened), occurredAt.",
      example: "-occurredAt",
    }),
    filter: PageQuery().shape.filter.openapi({
      description:
        "`<name>|<operator>|<values>` terms joined by `;` (AND). eq, in: status (PENDING, DELIVERED, FAILED), eventType, applicationId; " +
        "lt, lteq, eq, gteq, gt, in: occurredAt (ISO 8601 with offset, to the second).",
      example: "status|eq|FAILED;occurredAt|gteq|2026-11-01T00:00:00+01:00",
    }),
  }),
);

export const Notification = schema(() =>
  z
    .object({
      eventId: z.string(),
      eventType: z.enum(EVENT_TYPES),
      applicationId: z.string(),
      state: z.enum(APPLICATION_STATES),
      stateReason: z.enum(STATE_REASONS),
      sequence: z.number().int(),
      expiresAt: DateTimeOutput().optional().openapi({
        description: "The application's deadline when the event occurred, when one applied",
      }),
      occurredAt: DateTimeOutput(),
      status: z.enum(DELIVERY_STATUSES),
      deliveredAt: DateTimeOutput().optional(),
      nextAttemptAt: DateTimeOutput()
        .optional()
        .openapi({ description: "While PENDING: when the next attempt is due" }),
      failureReason: z.string().optional().openapi({
        description: "Why a FAILED event was given up: a 410 Gone, an unsafe endpoint, or 72 hours without a 2xx",
      }),
      attempts: z.array(
        z.object({
          attemptedAt: DateTimeOutput(),
          httpStatus: z.number().int().optional(),
          error: z.string().optional(),
          durationMs: z.number().int(),
        }),
      ),
    })
    .openapi("Notification"),
);

type NotificationView = Infer<typeof Notification>;

/** Events with their delivery attempts (all the attempts of these events, oldest first). */
export function presentNotifications(
  rows: readonly EventRow[],
  attempts: readonly AttemptRow[],
  timeZone: string,
): NotificationView[] {
  return rows.map((row) => ({
    eventId: row.id,
    eventType: row.type as NotificationView["eventType"],
    applicationId: row.applicationId,
    state: row.state as NotificationView["state"],
    stateReason: row.stateReason as NotificationView["stateReason"],
    sequence: row.sequence,
    ...(row.expiresAt !== null ? { expiresAt: formatDateTime(row.expiresAt, timeZone) } : {}),
    occurredAt: formatDateTime(row.occurredAt, timeZone),
    status: row.status as NotificationView["status"],
    ...(row.deliveredAt ? { deliveredAt: formatDateTime(row.deliveredAt, timeZone) } : {}),
    ...(row.status === "PENDING" && row.nextAttemptAt !== null
      ? { nextAttemptAt: formatDateTime(row.nextAttemptAt, timeZone) }
      : {}),
    ...(row.failureReason ? { failureReason: row.failureReason } : {}),
    attempts: attempts
      .filter((a) => a.eventId === row.id)
      .map((a) => ({
        attemptedAt: formatDateTime(a.attemptedAt, timeZone),
        ...(a.httpStatus !== null ? { httpStatus: a.httpStatus } : {}),
        ...(a.error !== null ? { error: a.error } : {}),
        durationMs: a.durationMs,
      })),
  }));
}
