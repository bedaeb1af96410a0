/**
 * The notification queue's consumer (CONTRACT 6). A message is a wake-up for one event; the event row
 * in D1 says whether and when it is due, so a late, repeated or overtaken message never POSTs twice.
 *
 * It sends nothing itself: it claims the batch's due events in D1 with one statement, which also reads
 * what each needs to be sent, and hands each to its endpoint's mailbox (src/mailbox/durable-object.ts),
 * which sends it as soon as one of that endpoint's slots is free and keeps its retries. So a batch takes
 * milliseconds whatever the endpoints do, and the consumer's slots, which every partner shares, are
 * never held by one partner's slow endpoint.
 */
import { now } from "../clock";
import type { Env } from "../config";
import { MAX_HOP_SECONDS, retryDelaySeconds } from "../domain/notification-schedule";
import { errorFields, log } from "../log";
import { EARLY_MS } from "../mailbox/client";
import { claim, failForGood, handOverOrRelease } from "./delivery";
import { DEAD_LETTER_QUEUE, type NotificationMessage } from "./message";

function isNotificationMessage(body: unknown): body is NotificationMessage {
  const message = body as NotificationMessage;
  return (
    typeof body === "object" &&
    body !== null &&
    typeof message.eventId === "string" &&
    /^[0-9A-Z]{26}$/.test(message.eventId) &&
    (message.due === undefined || Number.isSafeInteger(message.due)) &&
    (message.shard === undefined || (Number.isSafeInteger(message.shard) && message.shard >= 0))
  );
}

/** A wake-up after `delayMs`, at most one queue hop ahead (a later one wakes up again, see EARLY_MS). */
async function publishLater(env: Env, message: NotificationMessage, delayMs: number): Promise<void> {
  const delaySeconds = Math.min(MAX_HOP_SECONDS, Math.max(0, Math.ceil(delayMs / 1000)));
  try {
    await env.NOTIFICATIONS.send(message, { delaySeconds });
  } catch (error) {
    // The event stays PENDING and due: the sweep sends it again once it is overdue.
    log("warn", "scheduling the next attempt failed; the sweep will", {
      eventId: message.eventId,
      ...errorFields(error),
    });
  }
}

/**
 * One batch. The dead-letter queue's messages fail their events (a message the consumer could not
 * process again and again). Otherwise: a malformed message is dropped, one due later than EARLY_MS
 * from now goes back to the queue for then (a wake-up from before the mailboxes, which kept retries on
 * the queue), and the others' events are claimed and handed over. A message whose event was not
 * claimed (delivered, overtaken, held by a claim) has nothing left to do; one whose claim or mailbox
 * failed is retried.
 */
export async function consume(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  if (batch.queue === DEAD_LETTER_QUEUE) {
    for (const message of batch.messages) {
      try {
        if (isNotificationMessage(message.body)) await failForGood(env, message.body.shard ?? 0, message.body.eventId);
        message.ack();
      } catch (error) {
        log("warn", "notification handling failed; retrying", { messageId: message.id, ...errorFields(error) });
        message.retry({ delaySeconds: retryDelaySeconds(message.attempts, 0.5) ?? MAX_HOP_SECONDS });
      }
    }
    return;
  }
  const at = now();
  const due: Message<NotificationMessage>[] = [];
  for (const message of batch.messages) {
    if (!isNotificationMessage(message.body)) {
      // Nothing can ever make it deliverable; retrying would only delay the dead-letter queue.
      log("warn", "malformed notification message dropped", { messageId: message.id });
      message.ack();
    } else if (message.body.due !== undefined && message.body.due - at > EARLY_MS) {
      await publishLater(env, message.body, message.body.due - at);
      message.ack();
    } else due.push(message as Message<NotificationMessage>);
  }
  // One claim per shard the batch's events are in (src/db/shards.ts): most batches hold one.
  const byShard = new Map<number, Message<NotificationMessage>[]>();
  for (const m of due) byShard.set(m.body.shard ?? 0, [...(byShard.get(m.body.shard ?? 0) ?? []), m]);
  const refused: string[] = [];
  for (const [shard, messages] of byShard) {
    try {
      const claimed = await claim(
        env,
        shard,
        messages.map((m) => m.body),
        at,
      );
      refused.push(...(await handOverOrRelease(env, shard, claimed)));
    } catch (error) {
      log("warn", "notification handling failed; retrying", { messages: messages.length, ...errorFields(error) });
      refused.push(...messages.map((m) => m.body.eventId));
    }
  }
  for (const message of due) {
    if (refused.includes(message.body.eventId)) {
      message.retry({ delaySeconds: retryDelaySeconds(message.attempts, 0.5) ?? MAX_HOP_SECONDS });
    } else message.ack();
  }
}
