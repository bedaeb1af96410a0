import { eq } from "drizzle-orm";
import { events } from "../db/schema";
import { DELIVERY_STATUSES } from "../domain/notification-schedule";
import { EVENT_TYPES } from "../domain/plan";
import { type Collection, EQUALITY_OPERATORS } from "./collection";
import { columnFilter, enumFilter, instantFilter, textValue } from "./filters";

/** One application's events, in the order they happened (their id). */
export const applicationNotificationsCollection = {
  table: events,
  id: events.id,
  idKey: "id",
  sortable: { id: events.id },
  filterable: {},
} satisfies Collection<typeof events>;

export const applicationEvents = (applicationId: string) => eq(events.applicationId, applicationId);

/**
 * The partner's delivery log across applications (CONTRACT 6): sorted by id or occurredAt, filtered by
 * delivery status, event type, time and application. Indexes (partner_id, id), (partner_id, status, id)
 * and (partner_id, occurred_at, id) serve them; an application's events come by (application_id, id).
 */
export const partnerNotificationsCollection = {
  table: events,
  id: events.id,
  idKey: "id",
  sortable: { id: events.id, occurredAt: events.occurredAt },
  filterable: {
    status: enumFilter(events.status, DELIVERY_STATUSES),
    eventType: enumFilter(events.type, EVENT_TYPES),
    occurredAt: instantFilter(events.occurredAt),
    applicationId: columnFilter(events.applicationId, EQUALITY_OPERATORS, textValue(64)),
  },
} satisfies Collection<typeof events>;

export const partnerEvents = (partnerId: string) => eq(events.partnerId, partnerId);
