import { and, eq, inArray, isNull, lt, notExists, or } from "drizzle-orm";
import { now } from "../clock";
import type { Env } from "../config";
import { database } from "../db/client";
import { events, notificationAttempts } from "../db/schema";

/** An event untouched this long after it was written (or last swept) was never handed to the queue. */
export const SWEEP_AFTER_MS = 5 * 60 * 1000;
/** D1 binds at most 100 parameters per statement; the update below binds one per event. */
const SWEEP_BATCH = 90;

/**
 * Scheduled safety net for the outbox: events still PENDING with no delivery attempt, written (or last
 * swept) more than five minutes ago, are enqueued again. Enqueueing right after the write is the fast
 * path; this makes sure a failure there never loses an event. A duplicate is harmless: the consumer
 * acknowledges messages of delivered events without sending.
 */
export async function sweep(env: Env): Promise<number> {
  const db = database(env);
  const at = now();
  const stale = at - SWEEP_AFTER_MS;
  const lost = await db
    .select({ id: events.id })
    .from(events)
    .where(
      and(
        eq(events.status, "PENDING"),
        lt(events.occurredAt, stale),
        or(isNull(events.enqueuedAt), lt(events.enqueuedAt, stale)),
        notExists(db.select().from(notificationAttempts).where(eq(notificationAttempts.eventId, events.id))),
      ),
    )
    .limit(SWEEP_BATCH);
  if (lost.length === 0) return 0;
  await env.NOTIFICATIONS.sendBatch(lost.map(({ id }) => ({ body: { eventId: id } })));
  await db
    .update(events)
    .set({ enqueuedAt: at })
    .where(
      inArray(
        events.id,
        lost.map(({ id }) => id),
      ),
    );
  return lost.length;
}
