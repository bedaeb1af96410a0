import { eq } from "drizzle-orm";
import { events } from "../db/schema";
import type { Collection } from "./collection";

/** Events page in the order they happened (their id). */
export const notificationsCollection = {
  table: events,
  id: events.id,
  sortable: { id: events.id },
  filterable: {},
} satisfies Collection<typeof events>;

export const applicationEvents = (applicationId: string) => eq(events.applicationId, applicationId);
