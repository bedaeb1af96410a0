import { createExecutionContext, createMessageBatch, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../../src/index";
import { call, json, signIn } from "../../support/api";
import { createApplication } from "../../support/factories";
import { type NotificationView, notificationsOf, QUEUE } from "../../support/notifications";
import { dbHolding, shardDatabases } from "../../support/shards";

/** One delivery attempt of the event now, answered with `status`: its wake-up names the event's shard, as `publish` does. */
async function deliver(eventId: string, status: number) {
  const db = await dbHolding("events", eventId);
  const shard = shardDatabases().indexOf(db);
  await db.prepare("UPDATE events SET next_attempt_at = ? WHERE id = ?").bind(Date.now(), eventId).run();
  vi.spyOn(env.NOTIFICATIONS, "send").mockResolvedValue(undefined as never);
  vi.spyOn(globalThis, "fetch").mockResolvedValue(new Response(null, { status }));
  vi.spyOn(console, "warn").mockImplementation(() => {});
  const batch = createMessageBatch(QUEUE, [{ id: "m", timestamp: new Date(), attempts: 1, body: { eventId, shard } }]);
  const ctx = createExecutionContext();
  await worker.queue(batch, env, ctx);
  await waitOnExecutionContext(ctx);
  vi.restoreAllMocks();
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("GET …/notifications", () => {
  it("lists the events with their status and attempts, oldest first", async () => {
    const { token } = await signIn();
    const app = await createApplication(token);
    await call("PUT", `/financing/v1/applications/${app.id}/cancel`, { token });
    const first = await json<{ data: NotificationView[] }>(await call("GET", notificationsOf(app.id), { token }));
    const [created, cancelled] = first.data;
    await deliver(created!.eventId, 500);
    await deliver(created!.eventId, 200);

    const res = await call("GET", notificationsOf(app.id), { token });
    expect(res.status).toBe(200);
    const body = await json<{ data: NotificationView[]; pagingInfo: unknown }>(res);
    expect(body.data.map((n) => [n.sequence, n.state, n.status])).toEqual([
      [1, "PROCESSING", "DELIVERED"],
      [2, "CANCELLED", "PENDING"],
    ]);
    expect(body.data[0]!.attempts.map((a) => a.httpStatus)).toEqual([500, 200]);
    expect(body.data[1]!.eventId).toBe(cancelled!.eventId);
    expect(body.pagingInfo).toEqual({ itemsPerPage: 20 });
  });

  it("answers 404 for another partner's application", async () => {
    const owner = await signIn();
    const other = await signIn();
    const app = await createApplication(owner.token);
    expect((await call("GET", notificationsOf(app.id), { token: other.token })).status).toBe(404);
  });
});
