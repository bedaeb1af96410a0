import type { Env } from "../config";

/**
 * Hands the events a committed batch wrote to the queue. It runs after the response (waitUntil) and
 * may fail: the event row stays PENDING and the scheduled sweep enqueues it again, so no event is lost
 * and the request path costs no extra D1 statement.
 */
export async function publish(env: Env, eventIds: readonly string[]): Promise<void> {
  if (eventIds.length === 0) return;
  try {
    await env.NOTIFICATIONS.sendBatch(eventIds.map((eventId) => ({ body: { eventId } })));
  } catch (error) {
    console.warn(
      JSON.stringify({
        level: "warn",
        message: "enqueueing notifications failed; the sweep will retry",
        eventIds,
        error: error instanceof Error ? error.message : String(error),
      }),
    );
  }
}
