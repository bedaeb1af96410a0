/**
 * Sending events again when the partner asks: one event (resend) or the partner's events of a time
 * range (replay), with the limits of both. The API and the console ask through here, so both keep the
 * same limits.
 */
import type { Env } from "../config";
import { ownsApplication } from "../db/applications";
import { attemptsOf } from "../db/event-reads";
import { type AttemptRow, anyEventMatching, type ReplaySelection, replayEvents, requeueEvent } from "../db/events";
import type { DatabaseHandle } from "../db/handle";
import type { EventRow } from "../db/schema";
import { limiter } from "../rate-limit/client";
import { publish } from "./outbox";

/** One replay puts at most this many events back, oldest first; the next replay takes the rest. */
export const MAX_REPLAY = 10_000;
/**
 * One replay per partner in this long: each can send thousands of POSTs towards a host the partner
 * names, so replay must not become an amplifier.
 */
export const REPLAY_INTERVAL_SECONDS = 60;

/**
 * Resends per partner in any RESEND_WINDOW_SECONDS (a sliding window): each is a POST towards a host the
 * partner names and an attempt row kept for the event, so a loop of resends must not become an amplifier
 * nor grow the database. Enough to resend by hand; many events at once are a replay's.
 */
export const RESEND_LIMIT = 10;
export const RESEND_WINDOW_SECONDS = 60;

const secondsUntil = (until: number, at: number) => Math.max(1, Math.ceil((until - at) / 1000));

export type Resent =
  | { outcome: "queued"; event: EventRow; attempts: AttemptRow[] }
  | { outcome: "not_found"; what: "application" | "notification" }
  /** A DELIVERED event sent again within the hour (by a resend or a replay). */
  | { outcome: "too_soon"; retryAfter: number }
  /** RESEND_LIMIT resends in the window already. */
  | { outcome: "limited"; retryAfter: number };

/**
 * Puts one event of the partner's application back on the queue, whatever its status. Every call counts
 * against the partner's resends, one of an unknown event too (a probe costs what a resend costs).
 * `database` is the request's: the partner's shard (src/db/shards.ts).
 */
export async function resendEvent(
  env: Env,
  database: DatabaseHandle,
  partnerId: string,
  applicationId: string,
  eventId: string,
  at: number,
): Promise<Resent> {
  const turn = await limiter(env, `resend:${partnerId}`).attempt(at, RESEND_LIMIT, RESEND_WINDOW_SECONDS);
  if (!turn.allowed) return { outcome: "limited", retryAfter: turn.retryAfter };
  const db = await database.orm();
  if (!(await ownsApplication(db, partnerId, applicationId))) return { outcome: "not_found", what: "application" };
  const event = await requeueEvent(db, applicationId, eventId, at);
  if (!event) return { outcome: "not_found", what: "notification" };
  if ("tooSoonUntil" in event) return { outcome: "too_soon", retryAfter: secondsUntil(event.tooSoonUntil, at) };
  // Awaited, not deferred: a resend that did not reach the queue must not be reported as queued.
  await env.NOTIFICATIONS.send({ eventId, due: at, shard: database.shard });
  return { outcome: "queued", event, attempts: await attemptsOf(database.client, [eventId]) };
}

export type Replayed =
  | { outcome: "replayed"; replayed: number; more: boolean }
  | { outcome: "too_soon"; retryAfter: number };

/**
 * Puts the partner's events matching `selection` back in delivery, at most one replay a minute.
 * `database` is the request's: the partner's shard.
 */
export async function replay(
  env: Env,
  database: DatabaseHandle,
  selection: ReplaySelection,
  at: number,
): Promise<Replayed> {
  const turn = await limiter(env, `replay:${selection.partnerId}`).attempt(at, 1, REPLAY_INTERVAL_SECONDS);
  if (!turn.allowed) return { outcome: "too_soon", retryAfter: turn.retryAfter };
  const db = await database.orm();
  const replayed = await replayEvents(db, selection, at, MAX_REPLAY);
  // Not deferred: events put back but never enqueued would wait for the sweep; they are due now either way.
  await publish(
    env,
    database.shard,
    replayed.map((eventId) => ({ eventId, due: at })),
  );
  const more = replayed.length === MAX_REPLAY && (await anyEventMatching(db, selection, at));
  return { outcome: "replayed", replayed: replayed.length, more };
}
