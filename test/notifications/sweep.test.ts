import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import {
  applicationWithEvent,
  attempts,
  firstEvent,
  partnerEndpoint,
  QUEUE,
  runBatch,
  sent,
  sweepEveryShard,
  T0,
  useNotificationHarness,
} from "../support/notifications";
import { dbHolding, dbOf } from "../support/shards";

useNotificationHarness();

const MINUTE = 60_000;

/** The wake-ups the sweep sends, by event id (the queue itself is replaced: nothing is delivered). */
function queued() {
  const calls = vi.spyOn(env.NOTIFICATIONS, "sendBatch").mockResolvedValue(undefined as never);
  return {
    calls,
    messages: () => calls.mock.calls.flatMap((c) => [...c[0]].map((m) => m.body as { eventId: string; due: number })),
  };
}

async function setEvent(id: string, fields: string, ...values: unknown[]) {
  await (await dbHolding("events", id))
    .prepare(`UPDATE events SET ${fields} WHERE id = ?`)
    .bind(...values, id)
    .run();
}

describe("the sweep", () => {
  it("wakes up an event never handed to the queue once it is two minutes overdue, and makes it due now", async () => {
    const { event, partner } = await applicationWithEvent();
    const queue = queued();
    vi.setSystemTime(T0.getTime() + MINUTE);
    await sweepEveryShard();
    expect(queue.messages().map((m) => m.eventId)).not.toContain(event.id);
    const at = T0.getTime() + 2 * MINUTE + 1;
    vi.setSystemTime(at);
    await sweepEveryShard();
    expect(queue.messages()).toContainEqual({ eventId: event.id, due: at, shard: partner.shard });
    expect((await firstEvent(event.application_id)).next_attempt_at).toBe(at);
  });

  it("re-sends an event whose retry wake-up was lost, once, and drops the lost one if it turns up", async () => {
    const { event, partner } = await applicationWithEvent();
    const lost = T0.getTime() - 10 * MINUTE;
    await setEvent(event.id, "failed_attempts = 2, next_attempt_at = ?", lost);
    const queue = queued();
    await sweepEveryShard();
    const wakeUp = queue.messages().find((m) => m.eventId === event.id)!;
    expect(wakeUp).toEqual({ eventId: event.id, due: T0.getTime(), shard: partner.shard });
    partnerEndpoint(() => new Response(null, { status: 200 }));
    await runBatch(QUEUE, [{ body: wakeUp }, { body: { eventId: event.id, due: lost } }]);
    expect(sent).toHaveLength(1);
    expect(await attempts(event.id)).toHaveLength(1);
    expect((await firstEvent(event.application_id)).status).toBe("DELIVERED");
  });

  it("leaves alone what is not overdue, delivered, failed, or being delivered right now", async () => {
    const due = await applicationWithEvent();
    const delivered = await applicationWithEvent();
    const failed = await applicationWithEvent();
    const inFlight = await applicationWithEvent();
    const overdue = T0.getTime() - 10 * MINUTE;
    await setEvent(due.event.id, "next_attempt_at = ?", T0.getTime() - MINUTE);
    await setEvent(delivered.event.id, "status = 'DELIVERED', next_attempt_at = NULL");
    await setEvent(failed.event.id, "status = 'FAILED', next_attempt_at = NULL");
    await setEvent(inFlight.event.id, "next_attempt_at = ?, delivering_until = ?", overdue, T0.getTime() + 20_000);
    const queue = queued();
    await sweepEveryShard();
    const woken = queue.messages().map((m) => m.eventId);
    for (const { event } of [due, delivered, failed, inFlight]) expect(woken).not.toContain(event.id);
    // The planted claim has no mailbox behind it to end it: ended here, so that the harness finds nothing held.
    await setEvent(inFlight.event.id, "delivering_until = NULL");
  });

  it("drains a backlog of 10,000 overdue events in one run, each once, a hundred per queue batch", async () => {
    const { event, partner } = await applicationWithEvent();
    await dbOf(partner)
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
       INSERT INTO events (id, application_id, partner_id, sequence, state, state_reason, occurred_at, status, next_attempt_at, failed_attempts)
       SELECT printf('BACKLOG%019d', i), ?, ?, i + 1, 'READY', 'READY_TO_SHIP', ?, 'PENDING', ?, i % 5 FROM n`,
      )
      .bind(event.application_id, partner.id, T0.getTime() - 3_600_000, T0.getTime() - 30 * MINUTE)
      .run();
    const queue = queued();
    await sweepEveryShard();
    const backlog = queue.messages().filter((m) => m.eventId.startsWith("BACKLOG"));
    expect(backlog).toHaveLength(10_000);
    expect(new Set(backlog.map((m) => m.eventId)).size).toBe(10_000);
    expect(queue.calls.mock.calls.every((c) => [...c[0]].length <= 100)).toBe(true);
    const left = await dbOf(partner)
      .prepare("SELECT COUNT(*) AS n FROM events WHERE id LIKE 'BACKLOG%' AND next_attempt_at < ?")
      .bind(T0.getTime())
      .first<{ n: number }>();
    expect(left!.n).toBe(0);
    queue.calls.mockClear();
    await sweepEveryShard();
    expect(queue.messages().filter((m) => m.eventId.startsWith("BACKLOG"))).toEqual([]);
  }, 60_000);

  it("stops when the queue refuses, leaving the rest overdue for the next run", async () => {
    const { event } = await applicationWithEvent();
    await setEvent(event.id, "next_attempt_at = ?", T0.getTime() - 10 * MINUTE);
    vi.spyOn(env.NOTIFICATIONS, "sendBatch").mockRejectedValue(new Error("queue unavailable"));
    vi.spyOn(console, "warn").mockImplementation(() => {});
    expect(await sweepEveryShard()).toBe(0);
    vi.setSystemTime(T0.getTime() + 3 * MINUTE);
    const queue = queued();
    await sweepEveryShard();
    expect(queue.messages().map((m) => m.eventId)).toContain(event.id);
  });
});
