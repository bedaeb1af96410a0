import { describe, expect, it, vi } from "vitest";
import { hmacSha256Hex } from "../../src/auth/crypto";
import {
  applicationWithEvent,
  attempts,
  DLQ,
  firstEvent,
  partnerEndpoint,
  QUEUE,
  runBatch,
  sent,
  T0,
  useNotificationHarness,
} from "../support/notifications";

useNotificationHarness();

describe("the notification consumer", () => {
  it("POSTs the event to notificationEndpoint, signed with the partner's API key, and records the delivery", async () => {
    const { partner, app, event } = await applicationWithEvent();
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
    const { event } = await applicationWithEvent();
    partnerEndpoint(() => new Response("busy", { status: 503 }));
    const result = await runBatch(QUEUE, [{ body: { eventId: event.id }, attempts: attempt }]);
    expect(result.retryMessages).toEqual([{ msgId: "msg-0", delaySeconds: delays[attempt - 1] }]);
    expect(result.explicitAcks).toEqual([]);
  });

  it("hands the message on to the dead-letter queue after the 9th failed attempt", async () => {
    const { app, event } = await applicationWithEvent();
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
    const { app, event } = await applicationWithEvent();
    partnerEndpoint(respond as () => Response);
    const result = await runBatch(QUEUE, [{ body: { eventId: event.id } }]);
    expect(result.retryMessages).toEqual([{ msgId: "msg-0", delaySeconds: 60 }]);
    expect((await firstEvent(app.id)).status).toBe("PENDING");
    expect(await attempts(event.id)).toEqual([
      { ...recorded, durationMs: expect.any(Number), attemptedAt: T0.getTime() },
    ]);
  });

  it("gives up on a partner that does not answer within 10 seconds and retries", async () => {
    const { event } = await applicationWithEvent();
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
    const { event } = await applicationWithEvent();
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
    const first = await applicationWithEvent();
    const second = await applicationWithEvent();
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
    const { app, event } = await applicationWithEvent();
    const result = await runBatch(DLQ, [{ body: { eventId: event.id } }]);
    expect(result.explicitAcks).toEqual(["msg-0"]);
    expect((await firstEvent(app.id)).status).toBe("FAILED");
  });

  it("leaves a delivered event DELIVERED", async () => {
    const { app, event } = await applicationWithEvent();
    partnerEndpoint(() => new Response(null, { status: 200 }));
    await runBatch(QUEUE, [{ body: { eventId: event.id } }]);
    await runBatch(DLQ, [{ body: { eventId: event.id } }]);
    expect((await firstEvent(app.id)).status).toBe("DELIVERED");
  });
});
