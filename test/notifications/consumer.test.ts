import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { hmacSha256Hex } from "../../src/auth/crypto";
import worker from "../../src/index";
import { signIn } from "../support/api";
import { createApplication } from "../support/factories";

const QUEUE = "financing-notifications";
const DLQ = "financing-notifications-dlq";
const T0 = new Date("2027-02-01T09:30:00Z");

interface Captured {
  url: string;
  method: string;
  headers: Headers;
  body: string;
}

let sent: Captured[] = [];

/** Replaces outbound fetch: records every notification and answers with `respond`. */
function partnerEndpoint(respond: (req: Request) => Response | Promise<Response>) {
  return vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const req = new Request(input as RequestInfo, init);
    sent.push({ url: req.url, method: req.method, headers: req.headers, body: await req.clone().text() });
    return respond(req);
  });
}

async function firstEvent(applicationId: string) {
  return (await env.DB.prepare("SELECT * FROM events WHERE application_id = ? ORDER BY sequence")
    .bind(applicationId)
    .first<{ id: string; status: string; sequence: number }>())!;
}

async function attempts(eventId: string) {
  return (
    await env.DB.prepare(
      "SELECT http_status AS httpStatus, error, duration_ms AS durationMs, attempted_at AS attemptedAt FROM notification_attempts WHERE event_id = ? ORDER BY id",
    )
      .bind(eventId)
      .all<{ httpStatus: number | null; error: string | null; durationMs: number; attemptedAt: number }>()
  ).results;
}

async function runBatch(queue: string, messages: { body: unknown; attempts?: number }[]) {
  const batch = createMessageBatch(
    queue,
    messages.map((m, i) => ({ id: `msg-${i}`, timestamp: new Date(), attempts: m.attempts ?? 1, body: m.body })),
  );
  // The harness reports which messages were retried, not with which delay: read that off retry().
  const retries = batch.messages.map((message) => vi.spyOn(message, "retry"));
  const ctx = createExecutionContext();
  await worker.queue(batch, env);
  const result = await getQueueResult(batch, ctx);
  const retryMessages = result.retryMessages.map(({ msgId }: { msgId: string }) => {
    const index = batch.messages.findIndex((m) => m.id === msgId);
    return { msgId, delaySeconds: retries[index]!.mock.calls[0]?.[0]?.delaySeconds };
  });
  return { ...result, retryMessages };
}

async function setUp() {
  const { partner, token } = await signIn();
  const app = await createApplication(token);
  const event = await firstEvent(app.id);
  return { partner, app, event };
}

beforeEach(() => {
  sent = [];
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(T0);
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("the notification consumer", () => {
  it("POSTs the event to notificationEndpoint, signed with the partner's API key, and records the delivery", async () => {
    const { partner, app, event } = await setUp();
    partnerEndpoint(() => new Response("ok", { status: 200 }));
    const result = await runBatch(QUEUE, [{ body: { eventId: event.id } }]);

    expect(result.explicitAcks).toEqual(["msg-0"]);
    expect(result.retryMessages).toEqual([]);
    expect(sent).toHaveLength(1);
    const [request] = sent;
    expect(request!.url).toBe("https://shop.example.com/financing/notifications");
    expect(request!.method).toBe("POST");
    expect(JSON.parse(request!.body)).toEqual({
      id: app.id,
      state: "PROCESSING",
      stateReason: "PROCESSING_REDIRECT_NEEDED",
      eventId: event.id,
      eventType: "APPLICATION_STATE_CHANGED",
      sequence: 1,
      occurredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/),
    });
    const timestamp = request!.headers.get("X-Notification-Timestamp")!;
    expect(timestamp).toBe(String(T0.getTime() / 1000));
    expect(request!.headers.get("X-Notification-Id")).toBe(event.id);
    expect(request!.headers.get("Content-Type")).toBe("application/json");

    // The receiver's check: HMAC-SHA256 over "timestamp.body" with the API key.
    const signature = request!.headers.get("X-Notification-Signature");
    expect(signature).toBe(`v1=${await hmacSha256Hex(partner.apiKey, `${timestamp}.${request!.body}`)}`);
    expect(signature).not.toBe(`v1=${await hmacSha256Hex("another-key", `${timestamp}.${request!.body}`)}`);
    expect(signature).not.toBe(`v1=${await hmacSha256Hex(partner.apiKey, `${timestamp}.${request!.body} `)}`);

    expect((await firstEvent(app.id)).status).toBe("DELIVERED");
    expect(await attempts(event.id)).toEqual([
      { httpStatus: 200, error: null, durationMs: expect.any(Number), attemptedAt: T0.getTime() },
    ]);
  });

  it.each([1, 2, 3, 4, 5, 6, 7, 8])("retries failed attempt %i after the contract's delay", async (attempt) => {
    const delays = [60, 300, 900, 3600, 10800, 21600, 43200, 43200];
    const { event } = await setUp();
    partnerEndpoint(() => new Response("busy", { status: 503 }));
    const result = await runBatch(QUEUE, [{ body: { eventId: event.id }, attempts: attempt }]);
    expect(result.retryMessages).toEqual([{ msgId: "msg-0", delaySeconds: delays[attempt - 1] }]);
    expect(result.explicitAcks).toEqual([]);
  });

  it("hands the message on to the dead-letter queue after the 9th failed attempt", async () => {
    const { app, event } = await setUp();
    partnerEndpoint(() => new Response(null, { status: 500 }));
    const result = await runBatch(QUEUE, [{ body: { eventId: event.id }, attempts: 9 }]);
    // With max_retries = 8 a further retry moves the message to the dead-letter queue.
    expect(result.retryMessages).toEqual([{ msgId: "msg-0", delaySeconds: 0 }]);
    expect((await firstEvent(app.id)).status).toBe("PENDING");
  });

  it.each([
    ["a 500", () => new Response("oops", { status: 500 }), { httpStatus: 500, error: null }],
    ["a 404", () => new Response(null, { status: 404 }), { httpStatus: 404, error: null }],
    [
      "a redirect",
      () => new Response(null, { status: 302, headers: { Location: "/x" } }),
      { httpStatus: 302, error: null },
    ],
    [
      "a network error",
      () => {
        throw new TypeError("connection refused");
      },
      { httpStatus: null, error: "connection refused" },
    ],
  ])("retries %s and records the attempt", async (_, respond, recorded) => {
    const { app, event } = await setUp();
    partnerEndpoint(respond as () => Response);
    const result = await runBatch(QUEUE, [{ body: { eventId: event.id } }]);
    expect(result.retryMessages).toEqual([{ msgId: "msg-0", delaySeconds: 60 }]);
    expect((await firstEvent(app.id)).status).toBe("PENDING");
    expect(await attempts(event.id)).toEqual([
      { ...recorded, durationMs: expect.any(Number), attemptedAt: T0.getTime() },
    ]);
  });

  it("gives up on a partner that does not answer within 10 seconds and retries", async () => {
    const { event } = await setUp();
    // The deadline is the runtime's AbortSignal.timeout(10 s); here it has already passed.
    const timeout = vi
      .spyOn(AbortSignal, "timeout")
      .mockReturnValue(AbortSignal.abort(new DOMException("The operation timed out.", "TimeoutError")));
    vi.spyOn(globalThis, "fetch").mockImplementation((_input, init) => Promise.reject(init?.signal?.reason));
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const result = await runBatch(QUEUE, [{ body: { eventId: event.id } }]);
    expect(timeout).toHaveBeenCalledWith(10_000);
    expect(result.retryMessages).toEqual([{ msgId: "msg-0", delaySeconds: 60 }]);
    expect(await attempts(event.id)).toEqual([
      { httpStatus: null, error: "no answer within 10 s", durationMs: expect.any(Number), attemptedAt: T0.getTime() },
    ]);
  });

  it("acknowledges a message of an already delivered event without sending again", async () => {
    const { event } = await setUp();
    partnerEndpoint(() => new Response(null, { status: 204 }));
    await runBatch(QUEUE, [{ body: { eventId: event.id } }]);
    const again = await runBatch(QUEUE, [{ body: { eventId: event.id }, attempts: 2 }]);
    expect(again.explicitAcks).toEqual(["msg-0"]);
    expect(sent).toHaveLength(1);
    expect(await attempts(event.id)).toHaveLength(1);
  });

  it.each([
    ["no body", null],
    ["a string", "01J000"],
    ["no event id", { id: "x" }],
    ["an event id of the wrong shape", { eventId: "'; DROP TABLE events; --" }],
    ["an unknown event id", { eventId: "01J0000000000000000000000Z" }],
  ])("sends nothing for a message with %s, and acknowledges it", async (_, body) => {
    const fetch = partnerEndpoint(() => new Response(null, { status: 200 }));
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const result = await runBatch(QUEUE, [{ body }]);
    expect(result.explicitAcks).toEqual(["msg-0"]);
    expect(fetch).not.toHaveBeenCalled();
  });

  it("delivers every message of a batch independently", async () => {
    const first = await setUp();
    const second = await setUp();
    partnerEndpoint(
      (req) => new Response(null, { status: req.headers.get("X-Notification-Id") === first.event.id ? 200 : 500 }),
    );
    const result = await runBatch(QUEUE, [
      { body: { eventId: first.event.id } },
      { body: { eventId: second.event.id } },
    ]);
    expect(result.explicitAcks).toEqual(["msg-0"]);
    expect(result.retryMessages).toEqual([{ msgId: "msg-1", delaySeconds: 60 }]);
  });
});

describe("the dead-letter consumer", () => {
  it("marks the event FAILED", async () => {
    const { app, event } = await setUp();
    const result = await runBatch(DLQ, [{ body: { eventId: event.id } }]);
    expect(result.explicitAcks).toEqual(["msg-0"]);
    expect((await firstEvent(app.id)).status).toBe("FAILED");
  });

  it("leaves a delivered event DELIVERED", async () => {
    const { app, event } = await setUp();
    partnerEndpoint(() => new Response(null, { status: 200 }));
    await runBatch(QUEUE, [{ body: { eventId: event.id } }]);
    await runBatch(DLQ, [{ body: { eventId: event.id } }]);
    expect((await firstEvent(app.id)).status).toBe("DELIVERED");
  });
});
