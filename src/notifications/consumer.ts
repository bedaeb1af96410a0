/**
 * Delivers application events to the partner's notificationEndpoint (CONTRACT 6). The queue carries
 * only event ids; the event, its endpoint and the partner's API key are read from D1 at delivery, so
 * a message is small, and a redelivered message for an event already delivered sends nothing.
 */
import { and, eq, ne } from "drizzle-orm";
import { decryptApiKey } from "../auth/crypto";
import { formatDateTime, now } from "../clock";
import type { Env } from "../config";
import { config } from "../config";
import { database } from "../db/client";
import { applications, events, notificationAttempts, partners } from "../db/schema";
import { retryDelaySeconds } from "../domain/notification-schedule";
import { newId } from "../ids";
import type { NotificationMessage } from "./message";
import { signNotification } from "./signing";

export const DELIVERY_TIMEOUT_MS = 10_000;
export const DEAD_LETTER_QUEUE = "financing-notifications-dlq";

function isNotificationMessage(body: unknown): body is NotificationMessage {
  return (
    typeof body === "object" &&
    body !== null &&
    typeof (body as NotificationMessage).eventId === "string" &&
    /^[0-9A-Z]{26}$/.test((body as NotificationMessage).eventId)
  );
}

function log(level: "info" | "warn", message: string, fields: Record<string, unknown>) {
  console[level === "warn" ? "warn" : "log"](JSON.stringify({ level, message, ...fields }));
}

async function loadDelivery(env: Env, eventId: string) {
  const db = database(env);
  return db
    .select({
      event: events,
      merchantUrls: applications.merchantUrls,
      apiKeyCiphertext: partners.apiKeyCiphertext,
    })
    .from(events)
    .innerJoin(applications, eq(applications.id, events.applicationId))
    .innerJoin(partners, eq(partners.id, applications.partnerId))
    .where(eq(events.id, eventId))
    .get();
}

/** One POST to the partner; never throws: the outcome is an HTTP status or an error text. */
async function post(endpoint: string, headers: Record<string, string>, body: string) {
  const started = performance.now();
  try {
    const res = await fetch(endpoint, {
      method: "POST",
      headers,
      body,
      // A redirect is not a delivery: the partner must answer at the URL it gave us.
      redirect: "manual",
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
    await res.body?.cancel();
    return { httpStatus: res.status, error: null, durationMs: Math.round(performance.now() - started) };
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    return {
      httpStatus: null,
      error: timedOut ? `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s` : String((error as Error)?.message ?? error),
      durationMs: Math.round(performance.now() - started),
    };
  }
}

async function deliver(message: Message<unknown>, env: Env): Promise<void> {
  if (!isNotificationMessage(message.body)) {
    // Nothing can ever make it deliverable; retrying would only delay the dead-letter queue.
    log("warn", "malformed notification message dropped", { messageId: message.id });
    return message.ack();
  }
  const { eventId } = message.body;
  const delivery = await loadDelivery(env, eventId);
  if (!delivery) {
    log("warn", "notification for an unknown event dropped", { eventId });
    return message.ack();
  }
  if (delivery.event.status === "DELIVERED") return message.ack();

  const { event } = delivery;
  const cfg = config(env);
  const body = JSON.stringify({
    id: event.applicationId,
    state: event.state,
    stateReason: event.stateReason,
    eventId: event.id,
    eventType: "APPLICATION_STATE_CHANGED",
    sequence: event.sequence,
    occurredAt: formatDateTime(event.occurredAt, cfg.SERVICE_TIMEZONE),
  });
  const timestamp = Math.floor(now() / 1000);
  const apiKey = await decryptApiKey(delivery.apiKeyCiphertext, cfg.AUTH_PEPPER);
  const endpoint = (delivery.merchantUrls as { notificationEndpoint: string }).notificationEndpoint;
  const attemptedAt = now();
  const outcome = await post(
    endpoint,
    {
      "Content-Type": "application/json",
      "User-Agent": "financing-partner-api/1 (notifications)",
      "X-Notification-Id": event.id,
      "X-Notification-Timestamp": String(timestamp),
      "X-Notification-Signature": await signNotification(apiKey, timestamp, body),
    },
    body,
  );
  const delivered = outcome.httpStatus !== null && outcome.httpStatus >= 200 && outcome.httpStatus < 300;

  const db = database(env);
  await db.batch([
    db.insert(notificationAttempts).values({ id: newId(attemptedAt), eventId, attemptedAt, ...outcome }),
    ...(delivered
      ? [db.update(events).set({ status: "DELIVERED", deliveredAt: now() }).where(eq(events.id, eventId))]
      : []),
  ]);
  if (delivered) return message.ack();

  // After the 9th failed attempt the schedule is spent; retry() then hands the message to the
  // dead-letter queue (max_retries = 8 in wrangler.toml), whose consumer marks the event failed.
  const delaySeconds = retryDelaySeconds(message.attempts) ?? 0;
  log("warn", "notification not delivered", { eventId, attempt: message.attempts, ...outcome, delaySeconds });
  message.retry({ delaySeconds });
}

/** Dead-letter consumer: the schedule is exhausted, so the event is marked failed (unless delivered meanwhile). */
async function markFailed(message: Message<unknown>, env: Env): Promise<void> {
  if (isNotificationMessage(message.body)) {
    const db = database(env);
    await db
      .update(events)
      .set({ status: "FAILED" })
      .where(and(eq(events.id, message.body.eventId), ne(events.status, "DELIVERED")));
    log("warn", "notification failed for good", { eventId: message.body.eventId });
  }
  message.ack();
}

export async function consume(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const handle = batch.queue === DEAD_LETTER_QUEUE ? markFailed : deliver;
  // One partner's slow endpoint must not hold up the others in the batch.
  await Promise.all(
    batch.messages.map((message) =>
      handle(message, env).catch((error) => {
        log("warn", "notification handling failed; retrying", { error: String(error), messageId: message.id });
        message.retry({ delaySeconds: retryDelaySeconds(message.attempts) ?? 0 });
      }),
    ),
  );
}
