/**
 * What a mailbox does when something is lost: D1 stays the truth. An attempt lost with the instance that
 * claimed it is claimed again once its lease ends; a claim that never reached a mailbox, and a mailbox
 * whose storage is gone, are woken up again from D1 by the sweep. In the runtime, with the real
 * consumer, D1 and objects; only the partner's endpoint is stubbed.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { LEASE_MS } from "../../src/mailbox/client";
import { claim } from "../../src/notifications/delivery";
import { OVERDUE_AFTER_MS } from "../../src/notifications/sweep";
import {
  alarmOf,
  applicationWithEvent,
  attempts,
  firstEvent,
  mailboxOfEvent,
  partnerEndpoint,
  QUEUE,
  queueBatch,
  queuedEventIds,
  runAlarm,
  runBatch,
  sent,
  sweepEveryShard,
  T0,
  useNotificationHarness,
} from "../support/notifications";
import { dbOf, dbOfApplication } from "../support/shards";

useNotificationHarness();

/** One run of the sweep, its wake-ups handed to the consumer as the queue would. */
async function sweepAndDeliver() {
  const woken = queuedEventIds();
  await sweepEveryShard();
  const ids = woken();
  vi.mocked(env.NOTIFICATIONS.sendBatch).mockRestore();
  if (ids.length > 0)
    await runBatch(
      QUEUE,
      ids.map((eventId) => ({ body: { eventId, due: Date.now() } })),
    );
  return ids;
}

describe("a crash between claim and outcome", () => {
  it("loses nothing: an attempt lost with its instance is claimed again and sent once its lease ends, not before", async () => {
    const { event, partner } = await applicationWithEvent();
    // A retry due ten minutes ago: overdue, which the sweep would wake up but for the claim.
    await dbOf(partner)
      .prepare("UPDATE events SET next_attempt_at = ?, failed_attempts = 2 WHERE id = ?")
      .bind(T0.getTime() - 10 * 60_000, event.id)
      .run();
    partnerEndpoint(() => new Response(null, { status: 204 }));
    // What an instance that claimed the event and died mid-attempt leaves: the claim in D1, the entry
    // held in the mailbox's storage until the lease ends (beside the partner's shard, which its first
    // claim stored), and the alarm for then; no attempt recorded.
    const [delivery] = await claim(env, partner.shard, [{ eventId: event.id }], T0.getTime());
    const leaseEnd = T0.getTime() + LEASE_MS;
    expect(delivery!.leaseUntil).toBe(leaseEnd);
    const mailbox = await mailboxOfEvent(event.id);
    await mailbox.state();
    await runInDurableObject(mailbox, async (_, state) => {
      state.storage.sql.exec("INSERT INTO home (id, shard) VALUES (1, ?)", partner.shard);
      state.storage.sql.exec(
        "INSERT INTO entries (event_id, due, lease_until) VALUES (?, ?, ?)",
        event.id,
        delivery!.due,
        leaseEnd,
      );
      await state.storage.setAlarm(leaseEnd);
    });

    // Before the lease ends: no second attempt, and the sweep leaves the claimed event alone.
    vi.setSystemTime(leaseEnd - 1);
    await runDurableObjectAlarm(mailbox);
    expect(await sweepAndDeliver()).not.toContain(event.id);
    expect(sent).toHaveLength(0);
    expect(await alarmOf(mailbox)).toBe(leaseEnd);

    vi.setSystemTime(leaseEnd);
    await runAlarm(mailbox);
    expect(sent).toHaveLength(1);
    expect(await firstEvent(event.application_id)).toMatchObject({ status: "DELIVERED", delivering_until: null });
    expect(await attempts(event.id)).toEqual([expect.objectContaining({ httpStatus: 204, attemptedAt: leaseEnd })]);
    expect(await mailbox.state()).toEqual({ entries: [], inFlight: 0, circuit: null });
  });

  it("loses nothing: an event claimed but never handed to its mailbox is woken up by the sweep once its lease ends", async () => {
    const { event, partner } = await applicationWithEvent();
    partnerEndpoint(() => new Response(null, { status: 204 }));
    await claim(env, partner.shard, [{ eventId: event.id }], T0.getTime());

    vi.setSystemTime(T0.getTime() + LEASE_MS - 1);
    expect(await sweepAndDeliver()).not.toContain(event.id);
    // Overdue and no longer held: the sweep's own rule (two minutes past due) is later than the lease.
    vi.setSystemTime(T0.getTime() + OVERDUE_AFTER_MS + 1);
    expect(await sweepAndDeliver()).toContain(event.id);
    expect(sent).toHaveLength(1);
    expect((await firstEvent(event.application_id)).status).toBe("DELIVERED");
  });
});

describe("a mailbox whose storage is lost", () => {
  it("is refilled from D1 by the sweep: each event it kept for a retry is sent once, in its turn", async () => {
    const [first, second] = [await applicationWithEvent(), await applicationWithEvent()];
    let status = 500;
    partnerEndpoint(() => new Response(null, { status }));
    await runBatch(QUEUE, [{ body: { eventId: first.event.id } }]);
    const mailbox = await mailboxOfEvent(first.event.id);
    const [kept] = (await mailbox.state()).entries;
    expect(kept).toMatchObject({ eventId: first.event.id, leaseUntil: null });
    expect(await alarmOf(mailbox)).toBe(kept!.due);

    // Everything the object stored is gone: its entries, its circuit, its alarm.
    await runInDurableObject(mailbox, async (_, state) => {
      state.storage.sql.exec("DELETE FROM entries");
      state.storage.sql.exec("DELETE FROM circuit");
      await state.storage.deleteAlarm();
    });
    expect((await mailbox.state()).entries).toEqual([]);

    // D1 still has the retry; once it is overdue the sweep wakes it up, with the other partner's event.
    status = 204;
    vi.setSystemTime(kept!.due + OVERDUE_AFTER_MS + 1);
    expect(await sweepAndDeliver()).toEqual(expect.arrayContaining([first.event.id, second.event.id]));
    for (const { app } of [first, second]) expect((await firstEvent(app.id)).status).toBe("DELIVERED");
    expect(sent.map((s) => s.headers.get("webhook-id"))).toEqual([
      first.event.id,
      expect.any(String),
      expect.any(String),
    ]);
    expect(await attempts(first.event.id)).toHaveLength(2);
    expect(await attempts(second.event.id)).toHaveLength(1);
    expect((await mailbox.state()).entries).toEqual([]);
  });
});

describe("a retry", () => {
  it("goes to the endpoint the application has when it falls due: another origin's mailbox takes it over", async () => {
    const { event } = await applicationWithEvent();
    let status = 500;
    partnerEndpoint(() => new Response(null, { status }));
    await runBatch(QUEUE, [{ body: { eventId: event.id } }]);
    const before = await mailboxOfEvent(event.id);
    const [kept] = (await before.state()).entries;
    await (await dbOfApplication(event.application_id))
      .prepare(
        "UPDATE applications SET merchant_urls = json_set(merchant_urls, '$.notificationEndpoint', ?) WHERE id = ?",
      )
      .bind("https://moved.example.com/hooks", event.application_id)
      .run();
    status = 204;
    vi.setSystemTime(kept!.due);
    await runAlarm(before);
    expect(sent.map((s) => s.url)).toEqual([
      "https://shop.example.com/financing/notifications",
      "https://moved.example.com/hooks",
    ]);
    expect((await firstEvent(event.application_id)).status).toBe("DELIVERED");
    expect((await before.state()).entries).toEqual([]);
    expect((await (await mailboxOfEvent(event.id)).state()).entries).toEqual([]);
  });
});

describe("an outcome D1 refuses", () => {
  it("is attempted again, claimed anew, once its lease ends; the 8th refusal in a row fails the event", async () => {
    const { event, partner } = await applicationWithEvent();
    partnerEndpoint(() => new Response(null, { status: 204 }));
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const prepare = dbOf(partner).prepare;
    vi.spyOn(dbOf(partner), "prepare").mockImplementation(function (this: D1Database, query: string) {
      if (query.startsWith('INSERT INTO "notification_outcomes"')) throw new Error("D1 is down");
      return prepare.call(this, query);
    });
    const mailbox = await mailboxOfEvent(event.id);
    // The refused attempt's entry is held again until its new lease ends (D1's claim stays unrecorded).
    const heldAgain = async (refused: number) => {
      for (const end = performance.now() + 5_000; performance.now() < end; await new Promise((r) => setTimeout(r, 5))) {
        const [entry] = (await mailbox.state()).entries;
        if (sent.length === refused && entry?.leaseUntil === Date.now() + LEASE_MS) return entry;
      }
      throw new Error(`attempt ${refused} not refused and held again within 5 s`);
    };
    await queueBatch(QUEUE, [{ body: { eventId: event.id } }]);
    for (let refused = 1; refused < 8; refused++) {
      vi.setSystemTime((await heldAgain(refused)).leaseUntil!);
      await runDurableObjectAlarm(mailbox);
    }
    await vi.waitFor(async () => expect((await firstEvent(event.application_id)).status).toBe("FAILED"));
    // At-least-once: each attempt was sent; none could be recorded, and the event fails as the
    // dead-letter queue would fail it.
    expect(sent).toHaveLength(8);
    expect(await firstEvent(event.application_id)).toMatchObject({
      status: "FAILED",
      failure_reason: "the notification could not be processed; contact support",
    });
    expect((await mailbox.state()).entries).toEqual([]);
  });
});
