/**
 * Delivery capacity and circuits are each partner's, per endpoint: the consumer hands every event to the
 * mailbox of its partner's endpoint (src/mailbox/durable-object.ts), which sends up to CONCURRENCY at
 * once and starts the next as one ends. Through the whole path in the runtime (the consumer, D1, the
 * mailboxes); only the partners' endpoints are stubbed.
 */
import { describe, expect, it, vi } from "vitest";
import { BASE_COOLDOWN_MS, CONCURRENCY, THRESHOLD } from "../../src/domain/endpoint-circuit";
import { signIn } from "../support/api";
import { applicationRequest, createApplication } from "../support/factories";
import {
  attempts,
  firstEvent,
  mailboxOfEvent,
  QUEUE,
  queueBatch,
  runBatch,
  settled,
  T0,
  useNotificationHarness,
} from "../support/notifications";
import { dbHolding } from "../support/shards";

useNotificationHarness();

/** Two merchants of one hosted platform: one origin, a path each. */
const PLATFORM = "https://platform.example.com";

/**
 * A new partner's `count` applications whose notifications go to `endpoint`; answers their first events'
 * ids. With `spaced`, a millisecond apart: the events' order is then their ids' (within a millisecond an
 * id's random part decides).
 */
async function eventsTo(endpoint: string, count: number, spaced = false) {
  const { token } = await signIn();
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    if (spaced) vi.setSystemTime(T0.getTime() - count + i);
    const body = applicationRequest();
    body.merchantUrls.notificationEndpoint = endpoint;
    ids.push((await firstEvent((await createApplication(token, body)).id)).id);
  }
  return ids;
}

/** Wake-ups for the events, in batches of 10 as the queue hands them over. */
async function wakeUp(eventIds: readonly string[]) {
  for (let i = 0; i < eventIds.length; i += 10) {
    await queueBatch(
      QUEUE,
      eventIds.slice(i, i + 10).map((eventId) => ({ body: { eventId } })),
    );
  }
}

/**
 * The endpoints, stubbed: every POST is noted when it starts and held until the test answers it, or
 * answered at once with 204 where `atOnce` says so; after `release(status)`, every one is answered so.
 * A held POST polls for its answer on a timer of its own: a promise resolved by the test would resume
 * the mailbox in the test's context, which the runtime refuses (I/O of another Durable Object).
 */
function heldEndpoints(atOnce: (url: string) => boolean = () => false) {
  const started: { eventId: string; url: string }[] = [];
  const answers = new Map<string, number | undefined>();
  let inFlight = 0;
  let mostInFlight = 0;
  let released: number | undefined;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const req = new Request(input as RequestInfo, init);
    const eventId = req.headers.get("webhook-id")!;
    started.push({ eventId, url: req.url });
    if (atOnce(req.url)) return new Response(null, { status: 204 });
    mostInFlight = Math.max(mostInFlight, ++inFlight);
    answers.set(eventId, undefined);
    while (answers.get(eventId) === undefined && released === undefined) await new Promise((r) => setTimeout(r, 2));
    const status = answers.get(eventId) ?? released!;
    answers.delete(eventId);
    inFlight--;
    return new Response(null, { status });
  });
  return {
    started,
    mostInFlight: () => mostInFlight,
    answer(eventId: string, status = 204) {
      answers.set(eventId, status);
    },
    /** From now on every POST is answered `status`, those held included. */
    release(status: number) {
      released = status;
    },
  };
}

/** Polls (real timers) until `condition` holds, for at most 5 s. */
async function until(condition: () => boolean | Promise<boolean>) {
  for (const end = performance.now() + 5_000; !(await condition()); await new Promise((r) => setTimeout(r, 5))) {
    if (performance.now() > end) throw new Error("condition not met within 5 s");
  }
}

describe("per-endpoint delivery", () => {
  it("starts the next event as soon as one in flight ends: CONCURRENCY at a time, in order, without another wake-up", async () => {
    const events = await eventsTo(`${PLATFORM}/shop`, CONCURRENCY + 3, true);
    vi.setSystemTime(T0);
    const endpoint = heldEndpoints();
    await wakeUp(events);
    await until(() => endpoint.started.length === CONCURRENCY);
    const mailbox = await mailboxOfEvent(events[0]!);
    expect((await mailbox.state()).inFlight).toBe(CONCURRENCY);
    // Nothing more starts while every slot is busy.
    await new Promise((r) => setTimeout(r, 100));
    expect(endpoint.started).toHaveLength(CONCURRENCY);

    // One answer frees one slot, and the next event due starts on it: no queue message, no alarm.
    endpoint.answer(events[0]!);
    await until(() => endpoint.started.length === CONCURRENCY + 1);
    expect(endpoint.started.at(-1)!.eventId).toBe(events[CONCURRENCY]);

    for (let n = 1; n < events.length; n++) {
      endpoint.answer(events[n]!);
      await until(() => endpoint.started.length === Math.min(events.length, CONCURRENCY + 1 + n));
    }
    await settled();
    expect(endpoint.started.map((s) => s.eventId)).toEqual(events);
    expect(endpoint.mostInFlight()).toBe(CONCURRENCY);
    for (const id of events) expect(await attempts(id)).toEqual([expect.objectContaining({ httpStatus: 204 })]);
    expect(await mailbox.state()).toEqual({ entries: [], inFlight: 0, circuit: null });
  });

  it("keeps another partner's endpoint on the same host waiting for nothing while one with 40 events hangs", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const hanging = await eventsTo(`${PLATFORM}/merchant-a`, 40);
    const [mine] = await eventsTo(`${PLATFORM}/merchant-b`, 1);
    const endpoints = heldEndpoints((url) => url.endsWith("/merchant-b"));
    await wakeUp([...hanging, mine!]);

    // Delivered while the other partner's four attempts still hang and its 36 other events wait.
    await settled([mine!]);
    expect((await firstEvent((await eventRow(mine!)).application_id)).status).toBe("DELIVERED");
    expect(endpoints.started.filter((s) => s.url.endsWith("/merchant-a"))).toHaveLength(CONCURRENCY);
    const theirs = await (await mailboxOfEvent(hanging[0]!)).state();
    expect(theirs.inFlight).toBe(CONCURRENCY);
    expect(theirs.entries).toHaveLength(40);

    // Its endpoint comes back answering 503: the other 36 follow, and all wait for their retries.
    endpoints.release(503);
    await settled();
    expect(endpoints.started).toHaveLength(41);
  });
});

describe("circuits", () => {
  it("opens one partner's circuit after THRESHOLD timeouts and never another's on the same origin; half-open, one attempt at a time", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const failing = await eventsTo(`${PLATFORM}/merchant-a`, THRESHOLD + 3);
    const [other] = await eventsTo(`${PLATFORM}/merchant-b`, 1);
    const timingOut = vi
      .spyOn(AbortSignal, "timeout")
      .mockReturnValue(AbortSignal.abort(new DOMException("The operation timed out.", "TimeoutError")));
    const fetch = vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const url = new Request(input as RequestInfo).url;
      if (url.endsWith("/merchant-a")) throw init?.signal?.reason;
      return new Response(null, { status: 204 });
    });
    for (const id of failing.slice(0, THRESHOLD)) await runBatch(QUEUE, [{ body: { eventId: id } }]);
    expect(fetch).toHaveBeenCalledTimes(THRESHOLD);

    // Open: the next one is not POSTed; the log says why and when deliveries resume.
    await runBatch(QUEUE, [{ body: { eventId: failing[THRESHOLD] } }]);
    expect(fetch).toHaveBeenCalledTimes(THRESHOLD);
    expect(await attempts(failing[THRESHOLD]!)).toEqual([
      {
        httpStatus: null,
        durationMs: 0,
        attemptedAt: T0.getTime(),
        error: `not sent: the endpoint failed 3 times in a row (last: timeout: no answer within 10 s); deliveries to it resume at 2027-02-01T09:30:30+00:00`,
      },
    ]);
    const skipped = await eventRow(failing[THRESHOLD]!);
    expect(skipped.next_attempt_at).toBeGreaterThanOrEqual(T0.getTime() + BASE_COOLDOWN_MS);
    expect(skipped.failed_attempts).toBe(1);

    // Another partner's merchant on the same host is sent to at once; its mailbox has no circuit.
    await runBatch(QUEUE, [{ body: { eventId: other } }]);
    expect(fetch).toHaveBeenCalledTimes(THRESHOLD + 1);
    expect((await eventRow(other!)).status).toBe("DELIVERED");
    expect((await (await mailboxOfEvent(other!)).state()).circuit).toBeNull();
    expect((await (await mailboxOfEvent(failing[0]!)).state()).circuit).toMatchObject({
      consecutiveFailures: THRESHOLD,
      openUntil: T0.getTime() + BASE_COOLDOWN_MS,
    });

    // Cooled down, half-open: of two events due, one is POSTed; its answer closes the circuit, and the
    // other goes at once.
    timingOut.mockRestore();
    fetch.mockRestore();
    const endpoint = heldEndpoints();
    vi.setSystemTime(T0.getTime() + BASE_COOLDOWN_MS);
    const [first, second] = failing.slice(THRESHOLD + 1);
    await wakeUp([first!, second!]);
    await until(() => endpoint.started.length === 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(endpoint.started).toHaveLength(1);
    endpoint.answer(endpoint.started[0]!.eventId);
    await until(() => endpoint.started.length === 2);
    endpoint.release(204);
    await settled();
    expect((await eventRow(first!)).status).toBe("DELIVERED");
    expect((await eventRow(second!)).status).toBe("DELIVERED");
    expect((await (await mailboxOfEvent(first!)).state()).circuit).toBeNull();
  });
});

async function eventRow(id: string) {
  return (await (await dbHolding("events", id)).prepare("SELECT * FROM events WHERE id = ?").bind(id).first<{
    application_id: string;
    status: string;
    next_attempt_at: number;
    failed_attempts: number;
  }>())!;
}
