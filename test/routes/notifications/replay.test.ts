import { describe, expect, it, vi } from "vitest";
import { call, json, signIn } from "../../support/api";
import { createApplication } from "../../support/factories";
import { failedEvent, queuedEventIds, T0, useNotificationHarness } from "../../support/notifications";
import { dbHolding, dbOf } from "../../support/shards";

useNotificationHarness();

const REPLAY = "/financing/v1/notifications/replay";
const HOUR = 3_600_000;
const MINUTE = 60_000;

const iso = (ms: number) => new Date(ms).toISOString();

describe("POST /financing/v1/notifications/replay", () => {
  it("re-sends exactly the partner's FAILED events of the time range, once, with a new schedule", async () => {
    const { token } = await signIn();
    const other = await signIn();
    const inRange = [
      (await failedEvent(token, T0.getTime() - 3 * HOUR)).eventId,
      (await failedEvent(token, T0.getTime() - 2 * HOUR)).eventId,
    ];
    const tooEarly = (await failedEvent(token, T0.getTime() - 10 * HOUR)).eventId;
    const othersEvent = (await failedEvent(other.token, T0.getTime() - 2 * HOUR)).eventId;
    const sentIds = queuedEventIds();
    const body = { from: iso(T0.getTime() - 5 * HOUR), to: iso(T0.getTime()) };

    const res = await call("POST", REPLAY, { token, body });
    expect(res.status).toBe(202);
    expect(await json(res)).toEqual({ replayed: 2, more: false });
    expect(sentIds().sort()).toEqual([...inRange].sort());
    for (const id of inRange) {
      const row = await (await dbHolding("events", id))
        .prepare("SELECT status, failed_attempts, next_attempt_at FROM events WHERE id = ?")
        .bind(id)
        .first();
      expect(row).toEqual({ status: "PENDING", failed_attempts: 0, next_attempt_at: T0.getTime() });
    }
    for (const id of [tooEarly, othersEvent]) {
      const row = await (await dbHolding("events", id))
        .prepare("SELECT status FROM events WHERE id = ?")
        .bind(id)
        .first();
      expect(row).toEqual({ status: "FAILED" });
    }
    // Again, a minute later: nothing FAILED is left in the range, nothing is sent twice.
    vi.setSystemTime(T0.getTime() + MINUTE);
    expect(await json(await call("POST", REPLAY, { token, body }))).toEqual({ replayed: 0, more: false });
    expect(sentIds()).toHaveLength(2);
  });

  it("answers a retry with the same Idempotency-Key from the first call, sending nothing again", async () => {
    const { token } = await signIn();
    await failedEvent(token, T0.getTime() - HOUR);
    const sentIds = queuedEventIds();
    const request = { token, body: { from: iso(T0.getTime() - 2 * HOUR) }, headers: { "Idempotency-Key": "replay-1" } };
    const first = await call("POST", REPLAY, request);
    const again = await call("POST", REPLAY, request);
    expect(await json(again)).toEqual(await json(first));
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(sentIds()).toHaveLength(1);
  });

  it("replays at most 10,000 events per call and says when more match", async () => {
    const { partner, token } = await signIn();
    const app = await createApplication(token);
    await dbOf(partner)
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10001)
       INSERT INTO events (id, application_id, partner_id, sequence, state, state_reason, occurred_at, status)
       SELECT printf('REPLAY%020d', i), ?, ?, i + 1, 'READY', 'READY_TO_SHIP', ?, 'FAILED' FROM n`,
      )
      .bind(app.id, partner.id, T0.getTime() - HOUR)
      .run();
    const sentIds = queuedEventIds();
    const body = { from: iso(T0.getTime() - 2 * HOUR) };
    expect(await json(await call("POST", REPLAY, { token, body }))).toEqual({ replayed: 10_000, more: true });
    vi.setSystemTime(T0.getTime() + MINUTE);
    expect(await json(await call("POST", REPLAY, { token, body }))).toEqual({ replayed: 1, more: false });
    expect(new Set(sentIds()).size).toBe(10_001);
  }, 60_000);

  it("takes one call per partner a minute: a second within it answers 429 with Retry-After and sends nothing", async () => {
    const { token } = await signIn();
    const other = await signIn();
    await failedEvent(token, T0.getTime() - HOUR);
    const sentIds = queuedEventIds();
    const body = { from: iso(T0.getTime() - 2 * HOUR) };
    expect((await call("POST", REPLAY, { token, body })).status).toBe(202);

    vi.setSystemTime(T0.getTime() + 20_000);
    const again = await call("POST", REPLAY, { token, body });
    expect(again.status).toBe(429);
    expect(again.headers.get("Retry-After")).toBe("40");
    expect(await json(again)).toMatchObject({ error: "rate_limit_exceeded" });
    // Another partner's turn is its own.
    expect((await call("POST", REPLAY, { token: other.token, body })).status).toBe(202);
    vi.setSystemTime(T0.getTime() + MINUTE);
    expect((await call("POST", REPLAY, { token, body })).status).toBe(202);
    expect(sentIds()).toHaveLength(1);
  });

  it("sends a DELIVERED event again at most once an hour: 5 calls on 30 events POST them 30 times, not 150", async () => {
    const { partner, token } = await signIn();
    const app = await createApplication(token);
    await dbOf(partner)
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30)
       INSERT INTO events (id, application_id, partner_id, sequence, state, state_reason, occurred_at, status, delivered_at)
       SELECT printf('DELIVERED%017d', i), ?, ?, i + 1, 'READY', 'READY_TO_SHIP', ?, 'DELIVERED', ? FROM n`,
      )
      .bind(app.id, partner.id, T0.getTime() - HOUR, T0.getTime() - HOUR)
      .run();
    const sentIds = queuedEventIds();
    const body = { status: "DELIVERED", from: iso(T0.getTime() - 2 * HOUR) };
    const replayed: number[] = [];
    for (let call5 = 0; call5 < 5; call5++) {
      vi.setSystemTime(T0.getTime() + call5 * MINUTE);
      const res = await call("POST", REPLAY, { token, body });
      replayed.push((await json<{ replayed: number }>(res)).replayed);
      // Delivered again each time (as the consumer would record it).
      await dbOf(partner).prepare("UPDATE events SET status = 'DELIVERED' WHERE id LIKE 'DELIVERED%'").run();
    }
    expect(replayed).toEqual([30, 0, 0, 0, 0]);
    expect(sentIds()).toHaveLength(30);
    // An hour after the replay they may be sent again.
    vi.setSystemTime(T0.getTime() + HOUR);
    expect(await json(await call("POST", REPLAY, { token, body }))).toEqual({ replayed: 30, more: false });
  });

  it("refuses a range that ends before it starts, and a status it cannot replay (400)", async () => {
    const { token } = await signIn();
    const backwards = await call("POST", REPLAY, {
      token,
      body: { from: iso(T0.getTime()), to: iso(T0.getTime() - HOUR) },
    });
    expect(backwards.status).toBe(400);
    expect(await json(backwards)).toMatchObject({ errors: [{ attribute: "to" }] });
    const pending = await call("POST", REPLAY, { token, body: { from: iso(T0.getTime()), status: "PENDING" } });
    expect(await json(pending)).toMatchObject({ errors: [{ code: "INVALID_VALUE", attribute: "status" }] });
  });
});
