import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { database } from "../../src/db/client";
import { claimDeliveries, recordOutcome } from "../../src/db/events";
import { ATTEMPTS_KEPT_PER_EVENT } from "../../src/db/schema";
import { newId } from "../../src/ids";
import { partnersOnShard } from "../support/api";
import { applicationWithEvent, attempts, firstEvent } from "../support/notifications";

// SQL on `env.DB` directly: the partners are of shard 0 (the routing: test/db/shards.test.ts).
partnersOnShard(0);

const db = () => database(env);
const AT = Date.parse("2027-03-01T10:00:00Z");

/** `count` attempts of the event, a minute apart, the last at AT − 1 min; their ids sort before any of AT's. */
async function pastAttempts(eventId: string, count: number) {
  await env.DB.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
     INSERT INTO notification_attempts (id, event_id, attempted_at, http_status, error, duration_ms)
     SELECT printf('00PAST%020d', i), ?2, ?3 - (?1 - i + 1) * 60000, 500, 'HTTP 500', 12 FROM n`,
  )
    .bind(count, eventId, AT)
    .run();
}

describe("recordOutcome", () => {
  it("records the attempt and moves the event on in one statement, ending its claim", async () => {
    const { app, event } = await applicationWithEvent();
    await env.DB.prepare("UPDATE events SET delivering_until = ?, failed_attempts = 2 WHERE id = ?")
      .bind(AT + 30_000, event.id)
      .run();
    const attempt = {
      id: newId(AT),
      eventId: event.id,
      attemptedAt: AT,
      httpStatus: 503,
      error: "HTTP 503",
      durationMs: 40,
    };
    const pending = { status: "PENDING", failedAttempts: 3, nextAttemptAt: AT + 1_800_000 } as const;
    await recordOutcome(db(), attempt, pending, { failedAttempts: 2 });
    expect(await firstEvent(app.id)).toMatchObject({
      status: "PENDING",
      failed_attempts: 3,
      next_attempt_at: AT + 1_800_000,
      delivering_until: null,
      failure_reason: null,
    });
    expect(await attempts(event.id)).toEqual([{ httpStatus: 503, error: "HTTP 503", durationMs: 40, attemptedAt: AT }]);

    // Delivered: the count of failed attempts stays, the time of delivery is kept.
    const delivered = { ...attempt, id: newId(AT + 1), httpStatus: 204, error: null };
    await recordOutcome(db(), delivered, { status: "DELIVERED", deliveredAt: AT + 2 }, { failedAttempts: 3 });
    expect(await firstEvent(app.id)).toMatchObject({ status: "DELIVERED", failed_attempts: 3, next_attempt_at: null });
    const row = await env.DB.prepare("SELECT delivered_at FROM events WHERE id = ?").bind(event.id).first();
    expect(row).toEqual({ delivered_at: AT + 2 });
  });

  it(`keeps an event's latest ${ATTEMPTS_KEPT_PER_EVENT} attempts: recording one more deletes the oldest, of that event only`, async () => {
    const [mine, other] = [await applicationWithEvent(), await applicationWithEvent()];
    await pastAttempts(mine.event.id, ATTEMPTS_KEPT_PER_EVENT);
    const attempt = {
      id: newId(AT),
      eventId: other.event.id,
      attemptedAt: AT,
      httpStatus: 500,
      error: "x",
      durationMs: 1,
    };
    await recordOutcome(
      db(),
      attempt,
      { status: "PENDING", failedAttempts: 1, nextAttemptAt: AT },
      { failedAttempts: 0 },
    );
    expect(await attempts(mine.event.id)).toHaveLength(ATTEMPTS_KEPT_PER_EVENT);

    const failed = { status: "FAILED", failedAttempts: 13, failureReason: "no 2xx" } as const;
    await recordOutcome(db(), { ...attempt, id: newId(AT), eventId: mine.event.id }, failed, { failedAttempts: 12 });
    const kept = await attempts(mine.event.id);
    expect(kept).toHaveLength(ATTEMPTS_KEPT_PER_EVENT);
    // The oldest went; the newest is the one just recorded.
    expect(kept[0]!.attemptedAt).toBe(AT - (ATTEMPTS_KEPT_PER_EVENT - 1) * 60_000);
    expect(kept.at(-1)).toEqual({ httpStatus: 500, error: "x", durationMs: 1, attemptedAt: AT });
    expect(await attempts(other.event.id)).toHaveLength(1);
    expect(await firstEvent(mine.app.id)).toMatchObject({
      status: "FAILED",
      failure_reason: "no 2xx",
      next_attempt_at: null,
    });
  });
});

describe("claimDeliveries", () => {
  it("claims due events with what sending them needs, once: a second claim before the lease ends gets nothing", async () => {
    const { partner, app, event } = await applicationWithEvent();
    const due = (await firstEvent(app.id)).next_attempt_at!;
    const wanted = [{ eventId: event.id, due }];
    const [delivery] = await claimDeliveries(db(), wanted, due, due, due + 30_000);
    expect(delivery).toMatchObject({
      event: { id: event.id, applicationId: app.id, partnerId: partner.id, sequence: 1, failedAttempts: 0 },
      due,
      endpoint: "https://shop.example.com/financing/notifications",
      secrets: { apiKey: expect.any(String), current: expect.any(String), previous: null, older: null },
      leaseUntil: due + 30_000,
    });
    expect(delivery!.secrets.apiKey).not.toBe(partner.apiKey);
    expect(await claimDeliveries(db(), wanted, due + 29_999, due + 29_999, due + 60_000)).toEqual([]);
    expect(await claimDeliveries(db(), wanted, due + 30_000, due + 30_000, due + 60_000)).toHaveLength(1);
  });

  it("claims nothing for a wake-up sent for another time, nor before the event is due, nor once it is delivered", async () => {
    const { app, event } = await applicationWithEvent();
    const due = (await firstEvent(app.id)).next_attempt_at!;
    expect(await claimDeliveries(db(), [{ eventId: event.id, due: due - 1 }], due, due, due + 1)).toEqual([]);
    expect(await claimDeliveries(db(), [{ eventId: event.id }], due - 2, due - 1, due + 1)).toEqual([]);
    await env.DB.prepare("UPDATE events SET status = 'DELIVERED' WHERE id = ?").bind(event.id).run();
    expect(await claimDeliveries(db(), [{ eventId: event.id }], due, due, due + 1)).toEqual([]);
  });
});
