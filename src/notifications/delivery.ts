/**
 * One attempt to deliver a claimed event to the partner's notificationEndpoint (CONTRACT 6), made by the
 * event's mailbox (src/mailbox/durable-object.ts): the endpoint checked again, the endpoint's circuit
 * asked, the event signed and POSTed, and what follows recorded in one statement (src/db/events.ts,
 * `recordOutcome`). Whatever the endpoint does (answer, refuse, hang) is an outcome a partner can act
 * on; only a failure of ours (recording it) throws, and the mailbox tries the event again.
 */
import { openSecret } from "../auth/crypto";
import { formatDateTime, now } from "../clock";
import { config, type Env, urlPolicy } from "../config";
import { shardDatabase } from "../db/client";
import { claimDeliveries, type Delivery, failEvent, recordOutcome, releaseClaims, type Wanted } from "../db/events";
import { type Circuit, circuitOpenError, isOpen } from "../domain/endpoint-circuit";
import { type AfterAttempt, afterFailure, isDelivered } from "../domain/notification-schedule";
import { signingNow, signingSecrets } from "../domain/signing-secrets";
import { unsafeUrlReason } from "../domain/url-safety";
import { newId } from "../ids";
import { errorFields, log } from "../log";
import { EARLY_MS, LEASE_MS, mailboxName, mailboxOf } from "../mailbox/client";
import { wireOf } from "../wire";
import { DELIVERY_TIMEOUT_MS, statusFailure, thrownFailure } from "./failures";
import { signatureHeaders } from "./signing";

/** What an attempt left: the event's next step, and how a POST sent ended (what the endpoint's circuit counts). */
export interface Attempted {
  after: AfterAttempt;
  sent?: { httpStatus: number | null; error: string | null; finishedAt: number };
}

/** A claimed event, and the shard it was claimed in (src/db/shards.ts): its outcome is recorded there. */
export type ShardDelivery = Delivery & { shard: number };

/**
 * Claims the events wanted for their mailboxes (src/db/events.ts, `claimDeliveries`) in their shard:
 * one statement, a lease of LEASE_MS, due by now (or within EARLY_MS).
 */
export async function claim(env: Env, shard: number, wanted: readonly Wanted[], at: number): Promise<ShardDelivery[]> {
  const claimed = await claimDeliveries(shardDatabase(env, shard), wanted, at, at + EARLY_MS, at + LEASE_MS);
  return claimed.map((delivery) => ({ ...delivery, shard }));
}

/**
 * Hands claimed events to their mailboxes, each mailbox's in one call, side by side. The claims of those
 * a mailbox did not take end at once, so that the next wake-up claims them; answers their ids.
 */
export async function handOverOrRelease(
  env: Env,
  shard: number,
  deliveries: readonly ShardDelivery[],
): Promise<string[]> {
  const byMailbox = new Map<string, ShardDelivery[]>();
  for (const delivery of deliveries) {
    const name = mailboxName(delivery.event.partnerId, delivery.endpoint);
    byMailbox.set(name, [...(byMailbox.get(name) ?? []), delivery]);
  }
  const refused: string[] = [];
  await Promise.all(
    [...byMailbox.values()].map(async (group) => {
      try {
        await mailboxOf(env, group[0]!.event.partnerId, group[0]!.endpoint).accept(group);
      } catch (error) {
        log("warn", "a mailbox did not take its notifications", { events: group.length, ...errorFields(error) });
        refused.push(...group.map((d) => d.event.id));
      }
    }),
  );
  if (refused.length > 0) {
    await releaseClaims(shardDatabase(env, shard), refused).catch((error) =>
      log("warn", "claims not released; they end with their lease", { events: refused.length, ...errorFields(error) }),
    );
  }
  return refused;
}

/** The last word on an event nothing could process (the dead-letter queue's, a mailbox's): FAILED. */
export async function failForGood(env: Env, shard: number, eventId: string): Promise<void> {
  await failEvent(shardDatabase(env, shard), eventId, "the notification could not be processed; contact support");
  log("warn", "notification failed for good", { eventId });
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
  const { apiKey, ...stored } = delivery.secrets;
  return {
    apiKey: await openSecret(apiKey, pepper, "api-key"),
    signingSecrets: await Promise.all(
      signingNow(signingSecrets(stored), at).map((s) => openSecret(s, pepper, "signing-secret")),
    ),
  };
}

/** The notification's body: the event as the partner reads it, in its wire profile (src/wire). */
async function bodyOf({ event, wireProfile }: Delivery, timeZone: string): Promise<string> {
  const body = {
    id: event.applicationId,
    state: event.state,
    stateReason: event.stateReason,
    eventId: event.id,
    eventType: event.type,
    sequence: event.sequence,
    ...(event.expiresAt !== null ? { expiresAt: formatDateTime(event.expiresAt, timeZone) } : {}),
    occurredAt: formatDateTime(event.occurredAt, timeZone),
  };
  const wire = wireOf(wireProfile);
  return JSON.stringify(wire ? (await wire).notification(body) : body);
}

/** Attempts the delivery at `at`, given its endpoint's circuit now; answers what follows. */
export async function attempt(
  env: Env,
  delivery: ShardDelivery,
  circuit: Circuit | null,
  at: number,
): Promise<Attempted> {
  const cfg = config(env);
  const db = shardDatabase(env, delivery.shard);
  const { event } = delivery;
  const attemptRow = { id: newId(at), eventId: event.id, attemptedAt: at };

  // Checked again before every POST: the rule may have tightened since the URL was accepted.
  const unsafe = unsafeUrlReason(delivery.endpoint, urlPolicy(cfg));
  if (unsafe) {
    const reason = `not sent: the notificationEndpoint ${unsafe}`;
    const after = { status: "FAILED", failedAttempts: event.failedAttempts, failureReason: reason } as const;
    await recordOutcome(db, { ...attemptRow, httpStatus: null, error: reason, durationMs: 0 }, after, event);
    log("warn", "notification refused: unsafe endpoint", { eventId: event.id, reason: unsafe });
    return { after };
  }

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
    await recordOutcome(db, { ...attemptRow, httpStatus: null, error, durationMs: 0 }, after, event);
    logUndelivered(event.id, after, error);
    return { after };
  }

  const body = await bodyOf(delivery, cfg.SERVICE_TIMEZONE);
  const signatures = await signatureHeaders(
    { id: event.id, timestamp: Math.floor(at / 1000), body },
    await secretsOf(delivery, cfg.AUTH_PEPPER, at),
  );
  const { retryAfter, ...outcome } = await post(
    delivery.endpoint,
    { "Content-Type": "application/json", "User-Agent": "financing-partner-api/1 (notifications)", ...signatures },
    body,
  );
  const finished = now();
  const after: AfterAttempt = isDelivered(outcome)
    ? { status: "DELIVERED", deliveredAt: finished }
    : afterFailure(event.failedAttempts + 1, { ...outcome, retryAfter }, finished);
  await recordOutcome(db, { ...attemptRow, ...outcome }, after, event);
  logUndelivered(event.id, after, outcome.error);
  return { after, sent: { httpStatus: outcome.httpStatus, error: outcome.error, finishedAt: finished } };
}

function logUndelivered(eventId: string, after: AfterAttempt, error: string | null): void {
  if (after.status === "PENDING") {
    log("warn", "notification not delivered", { eventId, attempt: after.failedAttempts, error });
  } else if (after.status === "FAILED") {
    log("warn", "notification failed for good", { eventId, reason: after.failureReason });
  }
}
