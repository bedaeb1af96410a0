/**
 * Delivers application events to the partner's notificationEndpoint (CONTRACT 6). A queue message is a
 * wake-up for one event; the event row in D1 says whether and when it is due, so a late, repeated or
 * overtaken message never POSTs twice. Every attempt is recorded with what a partner can act on.
 */
import { openSecret } from "../auth/crypto";
import { formatDateTime, now } from "../clock";
import { config, type Env, urlPolicy } from "../config";
import { database } from "../db/client";
import { type AfterAttempt, claimDelivery, type Delivery, deliveryOf, failEvent, recordAttempt } from "../db/events";
import { MAX_HOP_SECONDS, retryAfterSeconds, retryDelaySeconds } from "../domain/notification-schedule";
import { unsafeUrlReason } from "../domain/url-safety";
import { newId } from "../ids";
import { DELIVERY_TIMEOUT_MS, statusFailure, thrownFailure } from "./failures";
import type { NotificationMessage } from "./message";
import { signatureHeaders } from "./signing";

export const DEAD_LETTER_QUEUE = "financing-notifications-dlq";
/** How long one attempt holds its event: the timeout and time to record the outcome. */
const HOLD_MS = DELIVERY_TIMEOUT_MS + 20_000;
/** A wake-up this much early (a receiver's Retry-After longer than one queue hop) waits on instead. */
const EARLY_MS = 1000;

function isNotificationMessage(body: unknown): body is NotificationMessage {
  const message = body as NotificationMessage;
  return (
    typeof body === "object" &&
    body !== null &&
    typeof message.eventId === "string" &&
    /^[0-9A-Z]{26}$/.test(message.eventId) &&
    (message.due === undefined || Number.isSafeInteger(message.due))
  );
}

function log(level: "info" | "warn", message: string, fields: Record<string, unknown>) {
  console[level === "warn" ? "warn" : "log"](JSON.stringify({ level, message, ...fields }));
}

/** One POST to the partner; never throws: the outcome is an HTTP status (and the start of its body) or an error. */
async function post(endpoint: string, headers: Record<string, string>, body: string) {
  const started = performance.now();
  const durationMs = () => Math.round(performance.now() - started);
  try {
    const res = await fetch(endpoint, {
      method: "POST",
      headers,
      body,
      // A redirect is not a delivery: the partner must answer at the URL it gave us.
      redirect: "manual",
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
    const delivered = res.status >= 200 && res.status < 300;
    const text = delivered ? "" : await firstCharacters(res);
    if (delivered) await res.body?.cancel();
    return {
      httpStatus: res.status,
      error: delivered ? null : statusFailure(res.status, text),
      retryAfter: res.headers.get("Retry-After"),
      durationMs: durationMs(),
    };
  } catch (error) {
    return { httpStatus: null, error: thrownFailure(error), retryAfter: null, durationMs: durationMs() };
  }
}

/** The first characters of an answer's body (what a partner needs to see), without reading all of it. */
async function firstCharacters(res: Response): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  try {
    const { value } = await reader.read();
    return value ? new TextDecoder().decode(value.slice(0, 800)) : "";
  } catch {
    return "";
  } finally {
    void reader.cancel().catch(() => {});
  }
}

/** The partner's secrets in clear: the API key (legacy signature) and the signing secrets in force. */
async function secretsOf(delivery: Delivery, pepper: string, at: number) {
  const signingSecrets = [delivery.signingSecretCiphertext];
  if ((delivery.previousSigningSecretExpiresAt ?? 0) > at)
    signingSecrets.push(delivery.previousSigningSecretCiphertext);
  return {
    apiKey: await openSecret(delivery.apiKeyCiphertext, pepper, "api-key"),
    signingSecrets: await Promise.all(
      signingSecrets.filter((s): s is string => s !== null).map((s) => openSecret(s, pepper, "signing-secret")),
    ),
  };
}

/** What follows a failed attempt: the next one when the schedule allows, or failure for good. */
function afterFailure(
  failedAttempts: number,
  outcome: { httpStatus: number | null; error: string | null; retryAfter: string | null },
  at: number,
): AfterAttempt {
  if (outcome.httpStatus === 410) {
    return {
      status: "FAILED",
      failedAttempts,
      failureReason: "HTTP 410 Gone: the endpoint asked for no more deliveries",
    };
  }
  const scheduled = retryDelaySeconds(failedAttempts);
  if (scheduled === null) {
    return {
      status: "FAILED",
      failedAttempts,
      failureReason: `no 2xx answer in ${failedAttempts} attempts over 72 hours; last: ${outcome.error}`,
    };
  }
  // A receiver that is busy or down for maintenance says when to come back: never sooner.
  const asked =
    outcome.httpStatus === 429 || outcome.httpStatus === 503 ? retryAfterSeconds(outcome.retryAfter, at) : undefined;
  const delay = Math.max(scheduled, asked ?? 0);
  return { status: "PENDING", failedAttempts, nextAttemptAt: at + delay * 1000 };
}

async function deliver(message: Message<unknown>, env: Env): Promise<void> {
  if (!isNotificationMessage(message.body)) {
    // Nothing can ever make it deliverable; retrying would only delay the dead-letter queue.
    log("warn", "malformed notification message dropped", { messageId: message.id });
    return message.ack();
  }
  const { eventId } = message.body;
  const db = database(env);
  const delivery = await deliveryOf(db, eventId);
  if (!delivery) {
    log("warn", "notification for an unknown event dropped", { eventId });
    return message.ack();
  }
  const { event } = delivery;
  const due = event.nextAttemptAt;
  // Delivered, failed, or a wake-up overtaken by a newer one: nothing to do.
  if (event.status !== "PENDING" || due === null || (message.body.due !== undefined && message.body.due !== due)) {
    return message.ack();
  }
  const at = now();
  if (due - at > EARLY_MS) {
    // The receiver asked for a longer wait than one queue hop: wake up again, closer to the time.
    await publishLater(env, { eventId, due }, due - at);
    return message.ack();
  }
  if (!(await claimDelivery(db, eventId, due, at, at + HOLD_MS))) return message.ack();

  const cfg = config(env);
  const endpoint = delivery.merchantUrls.notificationEndpoint;
  const attempt = { id: newId(at), eventId, attemptedAt: at };
  const unsafe = unsafeUrlReason(endpoint, urlPolicy(cfg));
  if (unsafe) {
    // Checked again before every POST: the rule may have tightened since the URL was accepted.
    const reason = `not sent: the notificationEndpoint ${unsafe}`;
    await recordAttempt(
      db,
      { ...attempt, httpStatus: null, error: reason, durationMs: 0 },
      { status: "FAILED", failedAttempts: event.failedAttempts, failureReason: reason },
    );
    log("warn", "notification refused: unsafe endpoint", { eventId, reason: unsafe });
    return message.ack();
  }

  const body = JSON.stringify({
    id: event.applicationId,
    state: event.state,
    stateReason: event.stateReason,
    eventId: event.id,
    eventType: event.type,
    sequence: event.sequence,
    occurredAt: formatDateTime(event.occurredAt, cfg.SERVICE_TIMEZONE),
  });
  const signatures = await signatureHeaders(
    { id: event.id, timestamp: Math.floor(at / 1000), body },
    await secretsOf(delivery, cfg.AUTH_PEPPER, at),
  );
  const outcome = await post(
    endpoint,
    { "Content-Type": "application/json", "User-Agent": "financing-partner-api/1 (notifications)", ...signatures },
    body,
  );
  const finished = now();
  const delivered = outcome.httpStatus !== null && outcome.httpStatus >= 200 && outcome.httpStatus < 300;
  const after: AfterAttempt = delivered
    ? { status: "DELIVERED", deliveredAt: finished }
    : afterFailure(event.failedAttempts + 1, outcome, finished);
  const { retryAfter: _, ...recorded } = outcome;
  await recordAttempt(db, { ...attempt, ...recorded }, after);
  if (after.status === "PENDING") {
    log("warn", "notification not delivered", { eventId, attempt: after.failedAttempts, error: outcome.error });
    await publishLater(env, { eventId, due: after.nextAttemptAt }, after.nextAttemptAt - finished);
  } else if (after.status === "FAILED") {
    log("warn", "notification failed for good", { eventId, reason: after.failureReason });
  }
  message.ack();
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
      error: String(error),
    });
  }
}

/** Dead-letter consumer: a message the consumer could not process again and again fails its event. */
async function markFailed(message: Message<unknown>, env: Env): Promise<void> {
  if (isNotificationMessage(message.body)) {
    await failEvent(database(env), message.body.eventId, "the notification could not be processed; contact support");
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
        message.retry({ delaySeconds: retryDelaySeconds(message.attempts, 0.5) ?? MAX_HOP_SECONDS });
      }),
    ),
  );
}
