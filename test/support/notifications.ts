/** The partner's notification endpoint (stubbed outbound fetch) and the queue harness. */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, vi } from "vitest";
import worker from "../../src/index";
import { signIn } from "./api";
import { createApplication } from "./factories";

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
 * Registers, for the test file that calls it, a clean record of what was sent, no endpoint's circuit
 * open and no delivery in flight (the tests share endpoints), and the fake clock at T0 before each
 * test, and real timers and fetch after it.
 */
export function useNotificationHarness() {
  beforeEach(async () => {
    sent.length = 0;
    // What an earlier test of the file left (a cap filled, a circuit open) must not hold back this one's.
    await env.DB.prepare("DELETE FROM endpoint_circuits").run();
    await env.DB.prepare("UPDATE events SET delivering_until = NULL, delivering_to = NULL").run();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(T0);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });
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
  return (await env.DB.prepare("SELECT * FROM events WHERE application_id = ? ORDER BY sequence")
    .bind(applicationId)
    .first<StoredEvent>())!;
}

export async function attempts(eventId: string) {
  return (
    await env.DB.prepare(
      "SELECT http_status AS httpStatus, error, duration_ms AS durationMs, attempted_at AS attemptedAt FROM notification_attempts WHERE event_id = ? ORDER BY id",
    )
      .bind(eventId)
      .all<{ httpStatus: number | null; error: string | null; durationMs: number; attemptedAt: number }>()
  ).results;
}

/** Hands messages to the Worker's queue consumer; answers the harness's result with each retry's delay. */
export async function runBatch(queue: string, messages: { body: unknown; attempts?: number }[]) {
  const batch = createMessageBatch(
    queue,
    messages.map((m, i) => ({ id: `msg-${i}`, timestamp: new Date(), attempts: m.attempts ?? 1, body: m.body })),
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
  const row = await env.DB.prepare(
    "UPDATE events SET status = 'FAILED', failed_attempts = 13, next_attempt_at = NULL, occurred_at = ?, failure_reason = '72 hours without a 2xx' WHERE application_id = ? RETURNING id",
  )
    .bind(occurredAt, app.id)
    .first<{ id: string }>();
  return { applicationId: app.id, eventId: row!.id };
}
