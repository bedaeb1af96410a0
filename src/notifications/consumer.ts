/**
 * Delivers application events to the partner's notificationEndpoint (CONTRACT 6). A queue message is a
 * wake-up for one event; the event row in D1 says whether and when it is due, so a late, repeated or
 * overtaken message never POSTs twice. Every attempt is recorded with what a partner can act on.
 *
 * Delivery capacity is shared by every partner, so no partner's endpoint may take it: deliveries in
 * flight are capped per partner and per endpoint (a wake-up past a cap comes back a little later), an
 * endpoint that keeps timing out gets an open circuit (its deliveries fail fast, without a POST, until
 * it cools down), and a batch waits for its slow deliveries only briefly (they go on in the
 * background, their events held in D1), so the next batch, another partner's, is not kept waiting.
 */
import { openSecret } from "../auth/crypto";
import { formatDateTime, now } from "../clock";
import { config, type Env, urlPolicy } from "../config";
import { database } from "../db/client";
import { circuitOf, claimDelivery, type Delivery, deliveryOf, failEvent, recordAttempt } from "../db/events";
import { circuitAfter, circuitOpenError, isOpen } from "../domain/endpoint-circuit";
import {
  type AfterAttempt,
  afterFailure,
  isDelivered,
  MAX_HOP_SECONDS,
  retryDelaySeconds,
} from "../domain/notification-schedule";
import { signingNow, signingSecrets } from "../domain/signing-secrets";
import { unsafeUrlReason } from "../domain/url-safety";
import { newId } from "../ids";
import { errorFields, log } from "../log";
import { DELIVERY_TIMEOUT_MS, statusFailure, thrownFailure } from "./failures";
import { DEAD_LETTER_QUEUE, type NotificationMessage } from "./message";
import { signatureHeaders } from "./signing";

/** How long one attempt holds its event: the timeout and time to record the outcome. */
const HOLD_MS = DELIVERY_TIMEOUT_MS + 20_000;
/** A wake-up this much early (a receiver's Retry-After longer than one queue hop) waits on instead. */
const EARLY_MS = 1000;
/** Deliveries in flight at once, per partner and per endpoint (its origin). */
export const PARTNER_IN_FLIGHT = 8;
export const ENDPOINT_IN_FLIGHT = 4;
/** A wake-up that found a cap reached comes back after this long (plus up to as much again, at random). */
const CAPACITY_WAIT_MS = 5_000;
/** How long a batch waits for its deliveries; slower ones go on in the background (`consume`). */
export const BATCH_WAIT_MS = 500;

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
  const sealed = signingNow(
    signingSecrets({
      current: delivery.signingSecretCiphertext,
      previous: delivery.previousSigningSecretCiphertext,
      previousUntil: delivery.previousSigningSecretExpiresAt,
      older: delivery.olderSigningSecretCiphertext,
      olderUntil: delivery.olderSigningSecretExpiresAt,
    }),
    at,
  );
  return {
    apiKey: await openSecret(delivery.apiKeyCiphertext, pepper, "api-key"),
    signingSecrets: await Promise.all(sealed.map((s) => openSecret(s, pepper, "signing-secret"))),
  };
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
  const cfg = config(env);
  const endpoint = delivery.merchantUrls.notificationEndpoint;
  const unsafe = unsafeUrlReason(endpoint, urlPolicy(cfg));
  const origin = unsafe ? endpoint : new URL(endpoint).origin;
  const claim = await claimDelivery(db, {
    eventId,
    due,
    at,
    holdUntil: at + HOLD_MS,
    partnerId: event.partnerId,
    endpoint: origin,
    partnerCap: PARTNER_IN_FLIGHT,
    endpointCap: ENDPOINT_IN_FLIGHT,
  });
  if (claim === "busy") {
    // The partner's or the endpoint's deliveries in flight are at their cap: come back shortly.
    await publishLater(env, { eventId, due }, CAPACITY_WAIT_MS * (1 + Math.random()));
    return message.ack();
  }
  if (claim === "gone") return message.ack();

  const attempt = { id: newId(at), eventId, attemptedAt: at };
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

  const circuit = await circuitOf(db, origin);
  if (isOpen(circuit, at)) {
    // The endpoint keeps timing out: no POST (it would hold a slot for 10 s); the attempt counts as
    // failed, and the next one waits at least until the circuit cools down.
    const error = circuitOpenError(circuit, (ms) => formatDateTime(ms, cfg.SERVICE_TIMEZONE));
    const after = afterFailure(
      event.failedAttempts + 1,
      { httpStatus: null, error, retryAfter: null },
      at,
      circuit.openUntil,
    );
    await recordAttempt(db, { ...attempt, httpStatus: null, error, durationMs: 0 }, after);
    await scheduleNext(env, eventId, after, at, error);
    return message.ack();
  }

  const body = JSON.stringify({
    id: event.applicationId,
    state: event.state,
    stateReason: event.stateReason,
    eventId: event.id,
    eventType: event.type,
    sequence: event.sequence,
    ...(event.expiresAt !== null ? { expiresAt: formatDateTime(event.expiresAt, cfg.SERVICE_TIMEZONE) } : {}),
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
  const after: AfterAttempt = isDelivered(outcome)
    ? { status: "DELIVERED", deliveredAt: finished }
    : afterFailure(event.failedAttempts + 1, outcome, finished);
  const { retryAfter: _, ...recorded } = outcome;
  const nextCircuit = circuitAfter(circuit, outcome, finished);
  // Written when it changes: a closed circuit with no record stays without one.
  const circuitChange = nextCircuit === null && circuit === null ? undefined : { endpoint: origin, state: nextCircuit };
  await recordAttempt(db, { ...attempt, ...recorded }, after, circuitChange);
  if (nextCircuit?.openUntil && !isOpen(circuit, finished)) {
    log("warn", "notification endpoint circuit open", { endpoint: origin, failures: nextCircuit.consecutiveFailures });
  }
  await scheduleNext(env, eventId, after, finished, outcome.error);
  message.ack();
}

/** After an attempt that did not deliver: the next wake-up, or the word that the event failed for good. */
async function scheduleNext(env: Env, eventId: string, after: AfterAttempt, at: number, error: string | null) {
  if (after.status === "PENDING") {
    log("warn", "notification not delivered", { eventId, attempt: after.failedAttempts, error });
    await publishLater(env, { eventId, due: after.nextAttemptAt }, after.nextAttemptAt - at);
  } else if (after.status === "FAILED") {
    log("warn", "notification failed for good", { eventId, reason: after.failureReason });
  }
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

/** Dead-letter consumer: a message the consumer could not process again and again fails its event. */
async function markFailed(message: Message<unknown>, env: Env): Promise<void> {
  if (isNotificationMessage(message.body)) {
    await failEvent(database(env), message.body.eventId, "the notification could not be processed; contact support");
    log("warn", "notification failed for good", { eventId: message.body.eventId });
  }
  message.ack();
}

/**
 * One batch: its messages are handled side by side, and the batch waits for them at most
 * BATCH_WAIT_MS. A delivery still running then (a slow endpoint, up to its 10 s timeout) goes on in
 * the background; its event stays held in D1 until it is recorded, and if the isolate goes away first,
 * the sweep wakes the event up again. So the consumer's slots, which every partner shares, are never
 * kept by one partner's slow endpoint.
 */
export async function consume(batch: MessageBatch<unknown>, env: Env, ctx: ExecutionContext): Promise<void> {
  const handle = batch.queue === DEAD_LETTER_QUEUE ? markFailed : deliver;
  const handled = Promise.all(
    batch.messages.map((message) =>
      handle(message, env).catch((error) => {
        log("warn", "notification handling failed; retrying", { messageId: message.id, ...errorFields(error) });
        message.retry({ delaySeconds: retryDelaySeconds(message.attempts, 0.5) ?? MAX_HOP_SECONDS });
      }),
    ),
  );
  ctx.waitUntil(handled);
  await Promise.race([
    handled,
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, BATCH_WAIT_MS);
      void handled.finally(() => clearTimeout(timer));
    }),
  ]);
}
