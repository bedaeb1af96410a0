/**
 * Delivery capacity is every partner's: one partner's endpoint that hangs, with events queued behind
 * it, must not delay another partner's notifications; deliveries in flight are capped per partner and
 * per endpoint, and an endpoint that keeps timing out gets an open circuit until a later success.
 */
import { createExecutionContext, createMessageBatch, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { BASE_COOLDOWN_MS, THRESHOLD } from "../../src/domain/endpoint-circuit";
import worker from "../../src/index";
import { ENDPOINT_IN_FLIGHT, PARTNER_IN_FLIGHT } from "../../src/notifications/consumer";
import { signIn } from "../support/api";
import { applicationRequest, createApplication } from "../support/factories";
import { attempts, firstEvent, QUEUE, runBatch, T0, useNotificationHarness } from "../support/notifications";

useNotificationHarness();

const SLOW = "https://slow.example.com/hooks";
const FAST = "https://fast.example.com/hooks";

/** A partner with `count` applications whose notifications go to `endpoint`; answers their first events. */
async function eventsTo(endpoint: string, count: number) {
  const { token } = await signIn();
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const body = applicationRequest();
    body.merchantUrls.notificationEndpoint = endpoint;
    ids.push((await firstEvent((await createApplication(token, body)).id)).id);
  }
  return ids;
}

/** The queue's wake-ups, recorded instead of sent. */
function wakeUps() {
  return vi.spyOn(env.NOTIFICATIONS, "send").mockResolvedValue(undefined as never);
}

/**
 * The partners' endpoints: SLOW never answers until `release()` (nor before the 10 s timeout a real one
 * would meet), FAST answers at once; every POST to FAST is timed.
 */
function endpoints() {
  let release!: () => void;
  const hanging = new Promise<void>((resolve) => {
    release = resolve;
  });
  const fastAt: number[] = [];
  let slowPosts = 0;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input) => {
    const url = new Request(input as RequestInfo).url;
    if (url.startsWith(SLOW)) {
      slowPosts++;
      await hanging;
      return new Response(null, { status: 504 });
    }
    fastAt.push(performance.now());
    return new Response(null, { status: 204 });
  });
  return { release, fastAt, slowPosts: () => slowPosts };
}

/** The messages in batches of 10, one batch after another, as the queue hands them over. */
async function consumeInBatches(eventIds: string[]) {
  const contexts: ExecutionContext[] = [];
  for (let i = 0; i < eventIds.length; i += 10) {
    const batch = createMessageBatch(
      QUEUE,
      eventIds
        .slice(i, i + 10)
        .map((eventId, n) => ({ id: `m-${i + n}`, timestamp: new Date(), attempts: 1, body: { eventId } })),
    );
    const ctx = createExecutionContext();
    contexts.push(ctx);
    await worker.queue(batch, env, ctx);
  }
  return contexts;
}

describe("fair delivery", () => {
  it("delivers a partner's notification within 2 s of its time alone while another's endpoint hangs with 40 events queued", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    wakeUps();
    // Without the load: the fast partner's one notification, alone.
    const [alone] = await eventsTo(FAST, 1);
    const quiet = endpoints();
    const quietStart = performance.now();
    await Promise.all((await consumeInBatches([alone!])).map(waitOnExecutionContext));
    const baseline = quiet.fastAt[0]! - quietStart;
    vi.mocked(fetch).mockRestore();

    // With it: 40 events for an endpoint that never answers, queued ahead of the fast partner's one.
    const slowEvents = await eventsTo(SLOW, 40);
    const [mine] = await eventsTo(FAST, 1);
    const loaded = endpoints();
    const loadedStart = performance.now();
    const contexts = await consumeInBatches([...slowEvents, mine!]);
    const underLoad = loaded.fastAt[0]! - loadedStart;
    console.log(
      `fairness: the fast partner's notification ${Math.round(baseline)} ms alone, ${Math.round(underLoad)} ms behind 40 hanging events (${loaded.slowPosts()} POSTs to the hanging endpoint in flight)`,
    );

    expect(underLoad - baseline).toBeLessThan(2_000);
    // The hanging endpoint held at most its share of deliveries; the rest wait their turn, not lost.
    expect(loaded.slowPosts()).toBe(Math.min(PARTNER_IN_FLIGHT, ENDPOINT_IN_FLIGHT));
    loaded.release();
    await Promise.all(contexts.map(waitOnExecutionContext));
  }, 60_000);

  it.each([
    ["the endpoint's", ENDPOINT_IN_FLIGHT, (_i: number) => FAST, true],
    ["the partner's", PARTNER_IN_FLIGHT, (i: number) => `https://shop-${i}.example.com/hooks`, false],
  ])("caps %s deliveries in flight: past the cap a wake-up comes back seconds later, no POST, no attempt", async (_, cap, endpointOf, otherPartner) => {
    // `cap` deliveries in flight: to one endpoint (of another partner), or of the partner (to several).
    const { token } = await signIn();
    const heldBy = otherPartner ? (await signIn()).token : token;
    for (let i = 0; i < cap; i++) {
      const body = applicationRequest();
      body.merchantUrls.notificationEndpoint = endpointOf(i);
      const held = await firstEvent((await createApplication(heldBy, body)).id);
      await env.DB.prepare("UPDATE events SET delivering_until = ?, delivering_to = ? WHERE id = ?")
        .bind(T0.getTime() + 30_000, new URL(endpointOf(i)).origin, held.id)
        .run();
    }
    const body = applicationRequest();
    body.merchantUrls.notificationEndpoint = FAST;
    const event = await firstEvent((await createApplication(token, body)).id);
    const fetch = vi.spyOn(globalThis, "fetch");
    const wake = wakeUps();

    const result = await runBatch(QUEUE, [{ body: { eventId: event.id } }]);

    expect(result.explicitAcks).toEqual(["msg-0"]);
    expect(fetch).not.toHaveBeenCalled();
    expect(await attempts(event.id)).toEqual([]);
    const [[message, options]] = wake.mock.calls as unknown as [
      [{ eventId: string; due: number }, { delaySeconds: number }],
    ];
    expect(message).toEqual({ eventId: event.id, due: T0.getTime() });
    expect(options.delaySeconds).toBeGreaterThanOrEqual(5);
    expect(options.delaySeconds).toBeLessThanOrEqual(10);
    expect(await eventRow(event.id)).toMatchObject({ status: "PENDING", delivering_until: null, failed_attempts: 0 });
  });

  it("opens the circuit of an endpoint that keeps timing out: no POST while open, a success afterwards closes it", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    wakeUps();
    const events = await eventsTo(SLOW, THRESHOLD + 3);
    const timingOut = vi
      .spyOn(AbortSignal, "timeout")
      .mockReturnValue(AbortSignal.abort(new DOMException("The operation timed out.", "TimeoutError")));
    const fetch = vi
      .spyOn(globalThis, "fetch")
      .mockImplementation((_input, init) => Promise.reject(init?.signal?.reason));
    for (const id of events.slice(0, THRESHOLD)) await runBatch(QUEUE, [{ body: { eventId: id } }]);
    expect(fetch).toHaveBeenCalledTimes(THRESHOLD);

    // Open: the next delivery is not POSTed; the log says why and when it resumes.
    await runBatch(QUEUE, [{ body: { eventId: events[THRESHOLD] } }]);
    expect(fetch).toHaveBeenCalledTimes(THRESHOLD);
    const [skipped] = await attempts(events[THRESHOLD]!);
    expect(skipped).toEqual({
      httpStatus: null,
      durationMs: 0,
      attemptedAt: T0.getTime(),
      error: `not sent: the endpoint failed 3 times in a row (last: timeout: no answer within 10 s); deliveries to it resume at 2027-02-01T09:30:30+00:00`,
    });
    const next = await eventRow(events[THRESHOLD]!);
    expect(next.next_attempt_at).toBeGreaterThanOrEqual(T0.getTime() + BASE_COOLDOWN_MS);
    expect(next.failed_attempts).toBe(1);

    // Cooled down: the next delivery goes out, and its success closes the circuit.
    timingOut.mockRestore();
    fetch.mockImplementation(async () => new Response(null, { status: 200 }));
    vi.setSystemTime(T0.getTime() + BASE_COOLDOWN_MS);
    await runBatch(QUEUE, [{ body: { eventId: events[THRESHOLD + 1] } }]);
    expect(fetch).toHaveBeenCalledTimes(THRESHOLD + 1);
    expect((await env.DB.prepare("SELECT COUNT(*) AS n FROM endpoint_circuits").first())!.n).toBe(0);
    await runBatch(QUEUE, [{ body: { eventId: events[THRESHOLD + 2] } }]);
    expect(fetch).toHaveBeenCalledTimes(THRESHOLD + 2);
    expect((await eventRow(events[THRESHOLD + 2]!)).status).toBe("DELIVERED");
  });
});

async function eventRow(id: string) {
  return (await env.DB.prepare("SELECT * FROM events WHERE id = ?").bind(id).first<{
    application_id: string;
    status: string;
    delivering_until: number | null;
    next_attempt_at: number;
    failed_attempts: number;
  }>())!;
}
