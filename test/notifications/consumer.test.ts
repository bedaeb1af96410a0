import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { describe, expect, it, vi } from "vitest";
import { hmacSha256Hex } from "../../src/auth/crypto";
import { RETRY_DELAYS_SECONDS } from "../../src/domain/notification-schedule";
import { signIn } from "../support/api";
import { createApplication } from "../support/factories";
import {
  alarmOf,
  applicationWithEvent,
  attempts,
  DLQ,
  firstEvent,
  mailboxOfEvent,
  partnerEndpoint,
  QUEUE,
  queueBatch,
  runAlarm,
  runBatch,
  sent,
  settled,
  T0,
  useNotificationHarness,
} from "../support/notifications";
import { dbHolding, dbOfApplication, shardDatabases } from "../support/shards";

useNotificationHarness();

async function setEvent(id: string, fields: string, ...values: unknown[]) {
  await (await dbHolding("events", id))
    .prepare(`UPDATE events SET ${fields} WHERE id = ?`)
    .bind(...values, id)
    .run();
}

const headersOf = (req: { headers: Headers }) => Object.fromEntries(req.headers);

/**
 * Records the SQL of every D1 statement, on every shard, from now on (the harness's own polling and its
 * look-ups of which shard holds a row, test/support/shards.ts, left out).
 */
function countStatements() {
  const prepared: string[] = [];
  for (const db of shardDatabases()) {
    const prepare = db.prepare;
    vi.spyOn(db, "prepare").mockImplementation(function (this: D1Database, query: string) {
      if (!/^SELECT (COUNT\(\*\) AS n FROM events WHERE delivering_until|1 FROM )/.test(query)) prepared.push(query);
      return prepare.call(this, query);
    });
    vi.spyOn(db, "batch").mockImplementation(() => {
      throw new Error("no batch expected");
    });
  }
  return () => {
    for (const db of shardDatabases()) {
      vi.mocked(db.prepare).mockRestore();
      vi.mocked(db.batch).mockRestore();
    }
    return prepared;
  };
}

describe("the notification consumer", () => {
  it("POSTs the event, signed by Standard Webhooks and the legacy scheme, and records the delivery", async () => {
    const { partner, app, event } = await applicationWithEvent();
    partnerEndpoint(() => new Response("ok", { status: 200 }));
    const result = await runBatch(QUEUE, [{ body: { eventId: event.id } }]);

    expect(result.explicitAcks).toEqual(["msg-0"]);
    expect(result.retryMessages).toEqual([]);
    expect(sent).toHaveLength(1);
    const [request] = sent;
    expect(request!.url).toBe("https://shop.example.com/financing/notifications");
    expect(request!.method).toBe("POST");
    const expected = {
      id: app.id,
      state: "PROCESSING",
      stateReason: "PROCESSING_REDIRECT_NEEDED",
      eventId: event.id,
      eventType: "APPLICATION_STATE_CHANGED",
      sequence: 1,
      // The customer's deadline: 72 hours after creation.
      expiresAt: "2027-02-04T09:30:00+00:00",
      occurredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/),
    };
    expect(JSON.parse(request!.body)).toEqual(expected);
    expect(request!.headers.get("Content-Type")).toBe("application/json");

    // Standard Webhooks, verified by the library partners use.
    expect(request!.headers.get("webhook-id")).toBe(event.id);
    expect(request!.headers.get("webhook-timestamp")).toBe(String(T0.getTime() / 1000));
    expect(new Webhook(partner.signingSecret).verify(request!.body, headersOf(request!))).toEqual(expected);
    const stranger = new Webhook(`whsec_${btoa("another secret of some thirty-two bytes")}`);
    expect(() => stranger.verify(request!.body, headersOf(request!))).toThrow("No matching signature");
    expect(() => new Webhook(partner.signingSecret).verify(`${request!.body} `, headersOf(request!))).toThrow();

    // The legacy scheme: HMAC-SHA256 over "timestamp.body" with the API key.
    const timestamp = request!.headers.get("X-Notification-Timestamp")!;
    expect(timestamp).toBe(String(T0.getTime() / 1000));
    expect(request!.headers.get("X-Notification-Id")).toBe(event.id);
    expect(request!.headers.get("X-Notification-Signature")).toBe(
      `v1=${await hmacSha256Hex(partner.apiKey, `${timestamp}.${request!.body}`)}`,
    );

    expect(await firstEvent(app.id)).toMatchObject({ status: "DELIVERED", next_attempt_at: null });
    expect(await attempts(event.id)).toEqual([
      { httpStatus: 200, error: null, durationMs: expect.any(Number), attemptedAt: T0.getTime() },
    ]);
  });

  it.each(
    RETRY_DELAYS_SECONDS.map((delay, i) => [i + 1, delay]),
  )("after failed attempt %i waits about %i s (±10 %) in its mailbox, its alarm set for the next one", async (attempt, delay) => {
    const { event } = await applicationWithEvent();
    await setEvent(event.id, "failed_attempts = ?", attempt - 1);
    partnerEndpoint(() => new Response("busy", { status: 500 }));
    const result = await runBatch(QUEUE, [{ body: { eventId: event.id } }]);
    expect(result.explicitAcks).toEqual(["msg-0"]);
    const stored = await firstEvent(event.application_id);
    expect(stored).toMatchObject({ status: "PENDING", failed_attempts: attempt, delivering_until: null });
    const wait = (stored.next_attempt_at! - T0.getTime()) / 1000;
    expect(wait).toBeGreaterThanOrEqual(Math.floor(delay * 0.9));
    expect(wait).toBeLessThanOrEqual(Math.min(43_200, Math.ceil(delay * 1.1)));
    const mailbox = await mailboxOfEvent(event.id);
    expect((await mailbox.state()).entries).toEqual([
      { eventId: event.id, due: stored.next_attempt_at, leaseUntil: null },
    ]);
    expect(await alarmOf(mailbox)).toBe(stored.next_attempt_at);
  });

  it("tries again when the retry falls due: the alarm claims the event and POSTs it, not before", async () => {
    const { event } = await applicationWithEvent();
    let answer = 500;
    partnerEndpoint(() => new Response(null, { status: answer }));
    await runBatch(QUEUE, [{ body: { eventId: event.id } }]);
    const due = (await firstEvent(event.application_id)).next_attempt_at!;
    const mailbox = await mailboxOfEvent(event.id);
    // Early (an alarm may fire early): nothing is sent, and the alarm stays set for the retry.
    vi.setSystemTime(due - 10_000);
    await runAlarm(mailbox);
    expect(sent).toHaveLength(1);
    expect(await alarmOf(mailbox)).toBe(due);
    answer = 204;
    vi.setSystemTime(due);
    await runAlarm(mailbox);
    expect(sent).toHaveLength(2);
    expect(await firstEvent(event.application_id)).toMatchObject({ status: "DELIVERED", failed_attempts: 1 });
    expect(await attempts(event.id)).toEqual([
      expect.objectContaining({ httpStatus: 500, attemptedAt: T0.getTime() }),
      expect.objectContaining({ httpStatus: 204, attemptedAt: due }),
    ]);
    expect((await mailbox.state()).entries).toEqual([]);
    expect(await alarmOf(mailbox)).toBeNull();
  });

  it("fails the event for good after the 13th failed attempt, with the reason, and keeps nothing for later", async () => {
    const { event } = await applicationWithEvent();
    await setEvent(event.id, "failed_attempts = 12");
    partnerEndpoint(() => new Response("still down", { status: 500 }));
    await runBatch(QUEUE, [{ body: { eventId: event.id } }]);
    expect(await firstEvent(event.application_id)).toMatchObject({
      status: "FAILED",
      failed_attempts: 13,
      next_attempt_at: null,
      failure_reason: "no 2xx answer in 13 attempts over 72 hours; last: HTTP 500: still down",
    });
    expect((await (await mailboxOfEvent(event.id)).state()).entries).toEqual([]);
  });

  it("ends retries at once when the receiver answers 410 Gone", async () => {
    const { event } = await applicationWithEvent();
    partnerEndpoint(() => new Response("unsubscribed", { status: 410 }));
    await runBatch(QUEUE, [{ body: { eventId: event.id } }]);
    expect(await firstEvent(event.application_id)).toMatchObject({
      status: "FAILED",
      failure_reason: "HTTP 410 Gone: the endpoint asked for no more deliveries",
    });
    expect((await (await mailboxOfEvent(event.id)).state()).entries).toEqual([]);
  });

  it.each([429, 503])("honours Retry-After of a %i: the next attempt is no sooner", async (status) => {
    const { event } = await applicationWithEvent();
    partnerEndpoint(() => new Response(null, { status, headers: { "Retry-After": "7200" } }));
    await runBatch(QUEUE, [{ body: { eventId: event.id } }]);
    const stored = await firstEvent(event.application_id);
    expect(stored.next_attempt_at).toBe(T0.getTime() + 7_200_000);
    expect(await alarmOf(await mailboxOfEvent(event.id))).toBe(stored.next_attempt_at);
  });

  it("waits out a Retry-After of 30 hours, longer than a queue hop, without POSTing early", async () => {
    const { event } = await applicationWithEvent();
    partnerEndpoint(() => new Response(null, { status: 503, headers: { "Retry-After": String(30 * 3600) } }));
    await runBatch(QUEUE, [{ body: { eventId: event.id } }]);
    const due = T0.getTime() + 30 * 3_600_000;
    const mailbox = await mailboxOfEvent(event.id);
    expect(await alarmOf(mailbox)).toBe(due);
    vi.setSystemTime(T0.getTime() + 24 * 3_600_000);
    await runAlarm(mailbox);
    expect(sent).toHaveLength(1);
    vi.setSystemTime(due);
    await runAlarm(mailbox);
    expect(sent).toHaveLength(2);
  });

  it("puts a wake-up due later than a second back on the queue for its time, claiming nothing", async () => {
    const { partner, event } = await applicationWithEvent();
    const due = T0.getTime() + 5 * 3_600_000;
    await setEvent(event.id, "next_attempt_at = ?", due);
    const fetch = partnerEndpoint(() => new Response(null, { status: 204 }));
    const send = vi.spyOn(env.NOTIFICATIONS, "send").mockResolvedValue(undefined as never);
    const result = await runBatch(QUEUE, [{ body: { eventId: event.id, due } }]);
    expect(result.explicitAcks).toEqual(["msg-0"]);
    expect(send).toHaveBeenCalledWith({ eventId: event.id, due, shard: partner.shard }, { delaySeconds: 18_000 });
    expect(fetch).not.toHaveBeenCalled();
    expect(await firstEvent(event.application_id)).toMatchObject({ status: "PENDING", delivering_until: null });
  });

  it.each([
    [
      "a 500 with a body",
      () => new Response(`oops ${"x".repeat(500)}`, { status: 500 }),
      `HTTP 500: oops ${"x".repeat(195)}`,
    ],
    ["a 404", () => new Response(null, { status: 404 }), "HTTP 404"],
    ["a redirect", () => new Response(null, { status: 302, headers: { Location: "/x" } }), "HTTP 302"],
    [
      "Cloudflare's 523",
      () => new Response("error 523", { status: 523 }),
      "HTTP 523 (the endpoint's server is unreachable): error 523",
    ],
    [
      "Cloudflare's 525",
      () => new Response(null, { status: 525 }),
      "HTTP 525 (TLS handshake with the endpoint's server failed)",
    ],
    ["a refused connection", thrower(new TypeError("connect ECONNREFUSED")), "connection refused"],
    [
      "a DNS failure",
      thrower(new Error("DNS lookup failed; gai_strerror = Name or service not known")),
      "DNS failure: the endpoint's host name does not resolve",
    ],
    [
      "a TLS failure",
      thrower(new Error("TLS peer's certificate is not trusted")),
      "TLS error: the secure connection to the endpoint failed",
    ],
    ["a lost connection", thrower(new Error("Network connection lost.")), "the connection closed before an answer"],
    [
      "an opaque runtime error",
      thrower(new Error("internal error; reference = 9x8y7z")),
      "network error: no connection to the endpoint (the runtime gave no reason)",
    ],
  ])("records %s as an error a partner can act on, and retries", async (_, respond, error) => {
    const { event } = await applicationWithEvent();
    partnerEndpoint(respond as () => Response);
    await runBatch(QUEUE, [{ body: { eventId: event.id } }]);
    const [attempt] = await attempts(event.id);
    expect(attempt!.error).toBe(error);
    expect(attempt!.error).not.toMatch(/reference =/);
    expect((await firstEvent(event.application_id)).status).toBe("PENDING");
  });

  it("gives up on a partner that does not answer within 10 seconds and retries", async () => {
    const { event } = await applicationWithEvent();
    // The deadline is the runtime's AbortSignal.timeout(10 s); here it has already passed.
    const timeout = vi
      .spyOn(AbortSignal, "timeout")
      .mockReturnValue(AbortSignal.abort(new DOMException("The operation timed out.", "TimeoutError")));
    vi.spyOn(globalThis, "fetch").mockImplementation((_input, init) => Promise.reject(init?.signal?.reason));
    vi.spyOn(console, "warn").mockImplementation(() => {});
    await runBatch(QUEUE, [{ body: { eventId: event.id } }]);
    expect(timeout).toHaveBeenCalledWith(10_000);
    expect(await attempts(event.id)).toEqual([
      {
        httpStatus: null,
        error: "timeout: no answer within 10 s",
        durationMs: expect.any(Number),
        attemptedAt: T0.getTime(),
      },
    ]);
  });

  it("costs D1 two statements per delivered attempt: its claim (one for the whole batch) and its outcome", async () => {
    const { token } = await signIn();
    const events = [];
    for (let i = 0; i < 10; i++) events.push(await firstEvent((await createApplication(token)).id));
    let status = 500;
    partnerEndpoint(() => new Response(null, { status }));
    const statements = countStatements();
    await runBatch(
      QUEUE,
      events.map((e) => ({ body: { eventId: e.id } })),
    );
    expect(statements()).toEqual([
      expect.stringMatching(/^update "events" set "delivering_until" = \? where .* returning /),
      ...events.map(() => expect.stringMatching(/^INSERT INTO "notification_outcomes" /)),
    ]);

    // The retries, when the alarm comes: claimed as slots free (the first four together), each with its outcome.
    status = 204;
    const mailbox = await mailboxOfEvent(events[0]!.id);
    vi.setSystemTime(Math.max(...(await mailbox.state()).entries.map((e) => e.due)));
    const retries = countStatements();
    await runAlarm(mailbox);
    const sql = retries();
    const claims = sql.filter((q) => /^update "events" set "delivering_until" = \? where .* returning /.test(q));
    const outcomes = sql.filter((q) => q.startsWith('INSERT INTO "notification_outcomes" '));
    expect(outcomes).toHaveLength(events.length);
    expect(claims.length).toBeLessThanOrEqual(events.length);
    expect(claims.length + outcomes.length).toBe(sql.length);
    for (const e of events) expect((await firstEvent(e.application_id)).status).toBe("DELIVERED");
  });

  it("runs only on the batches a test hands it: nothing in the background delivers an event", async () => {
    const { event } = await applicationWithEvent();
    const fetch = partnerEndpoint(() => new Response(null, { status: 200 }));
    // Longer than the queue's max_batch_timeout (1 s), after which a consumed queue would deliver.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(fetch).not.toHaveBeenCalled();
    expect((await firstEvent(event.application_id)).status).toBe("PENDING");
  });

  it("drops a wake-up that a newer one overtook, sending nothing", async () => {
    const { event } = await applicationWithEvent();
    const fetch = partnerEndpoint(() => new Response(null, { status: 200 }));
    const result = await runBatch(QUEUE, [{ body: { eventId: event.id, due: T0.getTime() - 60_000 } }]);
    expect(result.explicitAcks).toEqual(["msg-0"]);
    expect(fetch).not.toHaveBeenCalled();
    expect((await firstEvent(event.application_id)).status).toBe("PENDING");
  });

  it("never POSTs an event twice while a delivery of it is in progress", async () => {
    const { event } = await applicationWithEvent();
    let release!: () => void;
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    partnerEndpoint(async () => {
      await slow;
      return new Response(null, { status: 200 });
    });
    await queueBatch(QUEUE, [{ body: { eventId: event.id } }]);
    // The second message arrives while the first is waiting for the partner's answer.
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    const second = await queueBatch(QUEUE, [{ body: { eventId: event.id } }]);
    expect(second.explicitAcks).toEqual(["msg-0"]);
    release();
    await settled();
    expect(sent).toHaveLength(1);
    expect(await attempts(event.id)).toHaveLength(1);
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
    ["a due that is not a time", { eventId: "01J0000000000000000000000Z", due: "soon" }],
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
    expect(result.explicitAcks).toEqual(["msg-0", "msg-1"]);
    expect((await firstEvent(first.app.id)).status).toBe("DELIVERED");
    expect(await firstEvent(second.app.id)).toMatchObject({ status: "PENDING", failed_attempts: 1 });
  });
});

describe("the endpoint, checked again before every POST", () => {
  it("is not contacted when it points inside the network; the event fails with the reason", async () => {
    const { event } = await applicationWithEvent();
    await (await dbOfApplication(event.application_id))
      .prepare(
        "UPDATE applications SET merchant_urls = json_set(merchant_urls, '$.notificationEndpoint', ?) WHERE id = ?",
      )
      .bind("https://169.254.169.254/latest/meta-data", event.application_id)
      .run();
    const fetch = partnerEndpoint(() => new Response(null, { status: 200 }));
    vi.spyOn(console, "warn").mockImplementation(() => {});
    await runBatch(QUEUE, [{ body: { eventId: event.id } }]);
    expect(fetch).not.toHaveBeenCalled();
    const reason = "not sent: the notificationEndpoint must point at a public host, not a link-local address";
    expect(await firstEvent(event.application_id)).toMatchObject({ status: "FAILED", failure_reason: reason });
    expect(await attempts(event.id)).toEqual([
      { httpStatus: null, error: reason, durationMs: 0, attemptedAt: T0.getTime() },
    ]);
  });

  it("reaches a receiver on this machine where HTTPS is not required (local development)", async () => {
    const { event } = await applicationWithEvent();
    await (await dbOfApplication(event.application_id))
      .prepare(
        "UPDATE applications SET merchant_urls = json_set(merchant_urls, '$.notificationEndpoint', ?) WHERE id = ?",
      )
      .bind("http://127.0.0.1:4000/notifications", event.application_id)
      .run();
    partnerEndpoint(() => new Response(null, { status: 204 }));
    await runBatch(QUEUE, [{ body: { eventId: event.id } }]);
    expect(sent.map((s) => s.url)).toEqual(["http://127.0.0.1:4000/notifications"]);
    expect((await firstEvent(event.application_id)).status).toBe("DELIVERED");
  });
});

describe("the dead-letter consumer", () => {
  it("marks an event the consumer could not process FAILED", async () => {
    const { app, event } = await applicationWithEvent();
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const result = await runBatch(DLQ, [{ body: { eventId: event.id } }]);
    expect(result.explicitAcks).toEqual(["msg-0"]);
    expect(await firstEvent(app.id)).toMatchObject({
      status: "FAILED",
      failure_reason: "the notification could not be processed; contact support",
    });
  });

  it("leaves a delivered event DELIVERED", async () => {
    const { app, event } = await applicationWithEvent();
    partnerEndpoint(() => new Response(null, { status: 200 }));
    await runBatch(QUEUE, [{ body: { eventId: event.id } }]);
    await runBatch(DLQ, [{ body: { eventId: event.id } }]);
    expect((await firstEvent(app.id)).status).toBe("DELIVERED");
  });
});

function thrower(error: Error) {
  return () => {
    throw error;
  };
}
