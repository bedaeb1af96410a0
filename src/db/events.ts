/** The outbox of application events and their delivery attempts. */
import { and, asc, eq, inArray } from "drizzle-orm";
import type { Database } from "./client";
import { type EventRow, events, notificationAttempts } from "./schema";

export type AttemptRow = typeof notificationAttempts.$inferSelect;

/** The delivery attempts of the events given, oldest first: one query for a whole page. */
export async function attemptsOf(db: Database, eventIds: readonly string[]): Promise<AttemptRow[]> {
  if (eventIds.length === 0) return [];
  return db
    .select()
    .from(notificationAttempts)
    .where(inArray(notificationAttempts.eventId, [...eventIds]))
    .orderBy(asc(notificationAttempts.id));
}

/** Marks the application's event PENDING again, to be enqueued now; null when there is no such event. */
export async function requeueEvent(
  db: Database,
  applicationId: string,
  eventId: string,
  at: number,
): Promise<EventRow | null> {
  const [event] = await db
    .update(events)
    .set({ status: "PENDING", enqueuedAt: at })
    .where(and(eq(events.id, eventId), eq(events.applicationId, applicationId)))
    .returning();
  return event ?? null;
}
