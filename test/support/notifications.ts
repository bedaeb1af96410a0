/** The partner's notification endpoint (stubbed outbound fetch) and the queue harness. */
import {
  createExecutionContext,
  createMessageBatch,
  getQueueResult,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, vi } from "vitest";
import { everyShard } from "../../src/db/shards";
import worker from "../../src/index";
import { mailboxOf } from "../../src/mailbox/client";
import type { EndpointMailbox } from "../../src/mailbox/durable-object";
import { sweep } from "../../src/notifications/sweep";
import { signIn } from "./api";
import { createApplication } from "./factories";
import { dbHolding, dbOfApplication, shardDatabases, summedOverShards } from "./shards";

export { DEAD_LETTER_QUEUE as DLQ, NOTIFICATION_QUEUE as QUEUE } from "../../src/notifications/message";
/** Fake time far from real time, so nothing scheduled fires on its own. */
export const T0 = new Date("2027-02-01T09:30:00Z");

export interface Captured {
  url: string;
  method: string;
  headers: Headers;
  body: string;
}

/** Every notification the stubbed endpoint received in the running test. */
export const sent: Captured[] = [];

/**
 * Registers, for the test file that calls it, a clean record of what was sent and the fake clock at T0
 * before each test; after it, the mailboxes done with what the test handed them (so that nothing of one
 * test is sent during the next), and real timers and fetch again. Each test's partners are new, and so
 * are their mailboxes.
 */
export function useNotificationHarness() {
  beforeEach(() => {
    sent.length = 0;
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(T0);
  });
  afterEach(async () => {
    await settled();
    vi.useRealTimers();
    vi.restoreAllMocks();
  });
}

/**
 * Waits until no event (of `eventIds`, or none at all) is held by a claim whose lease runs at the
 * (faked) time: every attempt handed to a mailbox has been recorded, and what is left in the mailboxes
 * waits for its time. Polls on real timers (vi.waitFor would move the faked clock on).
 */
export async function settled(eventIds?: readonly string[], timeoutMs = 8_000): Promise<void> {
  const held = `SELECT COUNT(*) AS n FROM events WHERE delivering_until > ?2
     AND (?1 IS NULL OR id IN (SELECT value FROM json_each(?1)))`;
  for (const until = performance.now() + timeoutMs; ; await new Promise((resolve) => setTimeout(resolve, 5))) {
    const { n = 0 } = await summedOverShards(held, eventIds ? JSON.stringify(eventIds) : null, Date.now());
    if (n === 0) return;
    if (performance.now() > until) throw new Error(`${n} events still held by a claim after ${timeoutMs} ms`);
  }
}

/** The mailbox of the event's partner and its application's endpoint now. */
export async function mailboxOfEvent(eventId: string) {
  const row = (await (
    await dbHolding("events", eventId)
  )
    .prepare(
      `SELECT e.partner_id AS partnerId, a.merchant_urls ->> '$.notificationEndpoint' AS endpoint
     FROM events e JOIN applications a ON a.id = e.application_id WHERE e.id = ?`,
    )
    .bind(eventId)
    .first<{ partnerId: string; endpoint: string }>())!;
  return mailboxOf(env, row.partnerId, row.endpoint);
}

/** When the mailbox's alarm is set for (null: none). */
export function alarmOf(mailbox: DurableObjectStub<EndpointMailbox>) {
  return runInDurableObject(mailbox, (_, state) => state.storage.getAlarm());
}

/** Runs the mailbox's alarm now, whenever it is set for, and waits for what it starts to be recorded. */
export async function runAlarm(mailbox: DurableObjectStub<EndpointMailbox>) {
  await runDurableObjectAlarm(mailbox);
  await settled();
}

/** Replaces outbound fetch: records every notification and answers with `respond`. */
export function partnerEndpoint(respond: (req: Request) => Response | Promise<Response>) {
  return vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const req = new Request(input as RequestInfo, init);
    sent.push({ url: req.url, method: req.method, headers: req.headers, body: await req.clone().text() });
    return respond(req);
  });
}

/** An event row as stored (column names as in the database). */
export interface StoredEvent {
  id: string;
  application_id: string;
  status: string;
  sequence: number;
  next_attempt_at: number | null;
  failed_attempts: number;
  delivering_until: number | null;
  failure_reason: string | null;
}

export async function firstEvent(applicationId: string) {
  return (await (
    await dbOfApplication(applicationId)
  )
    .prepare("SELECT * FROM events WHERE application_id = ? ORDER BY sequence")
    .bind(applicationId)
    .first<StoredEvent>())!;
}

export async function attempts(eventId: string) {
  return (
    await (
      await dbHolding("events", eventId)
    )
      .prepare(
        "SELECT http_status AS httpStatus, error, duration_ms AS durationMs, attempted_at AS attemptedAt FROM notification_attempts WHERE event_id = ? ORDER BY id",
      )
      .bind(eventId)
      .all<{ httpStatus: number | null; error: string | null; durationMs: number; attemptedAt: number }>()
  ).results;
}

/**
 * Hands messages to the Worker's queue consumer and waits until their events' attempts are recorded
 * (`settled`); answers the harness's result with each retry's delay.
 */
export async function runBatch(queue: string, messages: { body: unknown; attempts?: number }[]) {
  const result = await queueBatch(queue, messages);
  await settled();
  return result;
}

/**
 * A wake-up as the Worker writes it: one a test wrote without `shard` names the shard holding its event
 * (src/db/shards.ts), as every wake-up the Worker sends does. Any other body is left as it is.
 */
async function withShard(body: unknown): Promise<unknown> {
  if (typeof body !== "object" || body === null || "shard" in body) return body;
  const { eventId } = body as { eventId?: unknown };
  if (typeof eventId !== "string") return body;
  return { ...body, shard: shardDatabases().indexOf(await dbHolding("events", eventId)) };
}

/** Hands messages to the Worker's queue consumer, not waiting for the mailboxes it hands their events to. */
export async function queueBatch(queue: string, messages: { body: unknown; attempts?: number }[]) {
  const bodies = await Promise.all(messages.map((m) => withShard(m.body)));
  const batch = createMessageBatch(
    queue,
    messages.map((m, i) => ({ id: `msg-${i}`, timestamp: new Date(), attempts: m.attempts ?? 1, body: bodies[i] })),
  );
  // The harness reports which messages were retried, not with which delay: read that off retry().
  const retries = batch.messages.map((message) => vi.spyOn(message, "retry"));
  const ctx = createExecutionContext();
  await worker.queue(batch, env, ctx);
  const result = await getQueueResult(batch, ctx);
  const retryMessages = result.retryMessages.map(({ msgId }: { msgId: string }) => {
    const index = batch.messages.findIndex((m) => m.id === msgId);
    return { msgId, delaySeconds: retries[index]!.mock.calls[0]?.[0]?.delaySeconds };
  });
  return { ...result, retryMessages };
}

/** One run of the notification sweep on every shard, as the cron runs it: how many events it woke. */
export async function sweepEveryShard(): Promise<number> {
  let woken = 0;
  for (const { shard } of everyShard(env)) woken += await sweep(env, shard);
  return woken;
}

/** A partner, a new application of theirs and its first event. */
export async function applicationWithEvent() {
  const { partner, token } = await signIn();
  const app = await createApplication(token);
  const event = await firstEvent(app.id);
  return { partner, token, app, event };
}

/** The notifications of an application, as the partner lists them. */
export const notificationsOf = (applicationId: string) => `/financing/v1/applications/${applicationId}/notifications`;

export interface NotificationView {
  eventId: string;
  status: string;
  sequence: number;
  state: string;
  attempts: { httpStatus?: number; error?: string }[];
}

/** Replaces the queue (nothing is delivered): answers the ids of the events it was asked to wake so far. */
export function queuedEventIds() {
  const calls = vi.spyOn(env.NOTIFICATIONS, "sendBatch").mockResolvedValue(undefined as never);
  return () => calls.mock.calls.flatMap((c) => [...c[0]].map((m) => (m.body as { eventId: string }).eventId));
}

/** A new application of the partner whose first event occurred at `occurredAt` and was given up on. */
export async function failedEvent(token: string, occurredAt: number) {
  const app = await createApplication(token);
  const row = await (await dbOfApplication(app.id))
    .prepare(
      "UPDATE events SET status = 'FAILED', failed_attempts = 13, next_attempt_at = NULL, occurred_at = ?, failure_reason = '72 hours without a 2xx' WHERE application_id = ? RETURNING id",
    )
    .bind(occurredAt, app.id)
    .first<{ id: string }>();
  return { applicationId: app.id, eventId: row!.id };
}
