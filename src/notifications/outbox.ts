import type { Env } from "../config";
import { errorFields, log } from "../log";
import type { NotificationMessage } from "./message";

/**
 * Hands wake-ups for events of one shard to the queue. Called after a committed write (waitUntil) and by the sweep,
 * resend and replay; it may fail: the event row stays PENDING and due, and the scheduled sweep sends it
 * again, so no event is lost and the request path costs no extra D1 statement. The queue takes at most
 * 100 messages per batch.
 */
export async function publish(env: Env, shard: number, messages: readonly NotificationMessage[]): Promise<boolean> {
  try {
    for (let i = 0; i < messages.length; i += 100) {
      // Each names the event's shard (src/db/shards.ts): the consumer claims it there.
      await env.NOTIFICATIONS.sendBatch(messages.slice(i, i + 100).map((body) => ({ body: { ...body, shard } })));
    }
    return true;
  } catch (error) {
    log("warn", "enqueueing notifications failed; the sweep will retry", {
      events: messages.length,
      ...errorFields(error),
    });
    return false;
  }
}
