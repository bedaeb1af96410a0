import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RESEND_LIMIT, RESEND_WINDOW_SECONDS } from "../../../src/notifications/redelivery";
import { call, json, signIn } from "../../support/api";
import { createApplication } from "../../support/factories";
import { type NotificationView, notificationsOf } from "../../support/notifications";
import { dbHolding, dbOf } from "../../support/shards";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("POST …/notifications/{eventId}/resend", () => {
  it("puts a failed event back on the queue as PENDING and answers 202", async () => {
    const { partner, token } = await signIn();
    const app = await createApplication(token);
    const [event] = (await json<{ data: NotificationView[] }>(await call("GET", notificationsOf(app.id), { token })))
      .data;
    await dbOf(partner).prepare("UPDATE events SET status = 'FAILED' WHERE id = ?").bind(event!.eventId).run();
    const send = vi.spyOn(env.NOTIFICATIONS, "send");
    const res = await call("POST", `${notificationsOf(app.id)}/${event!.eventId}/resend`, { token });
    expect(res.status).toBe(202);
    expect(await json(res)).toMatchObject({ eventId: event!.eventId, status: "PENDING" });
    expect(send).toHaveBeenCalledWith({ eventId: event!.eventId, due: expect.any(Number), shard: partner.shard });
  });

  it("answers 404 for an unknown event and for another partner's", async () => {
    const owner = await signIn();
    const other = await signIn();
    const app = await createApplication(owner.token);
    const [event] = (
      await json<{ data: NotificationView[] }>(await call("GET", notificationsOf(app.id), { token: owner.token }))
    ).data;
    expect(
      (await call("POST", `${notificationsOf(app.id)}/01J0000000000000000000000Z/resend`, { token: owner.token }))
        .status,
    ).toBe(404);
    expect(
      (await call("POST", `${notificationsOf(app.id)}/${event!.eventId}/resend`, { token: other.token })).status,
    ).toBe(404);
  });

  it("sends a DELIVERED event again at most once an hour: sooner answers 429 with Retry-After, a FAILED one goes at once", async () => {
    const { token } = await signIn();
    const app = await createApplication(token);
    const [event] = (await json<{ data: NotificationView[] }>(await call("GET", notificationsOf(app.id), { token })))
      .data;
    const resend = `${notificationsOf(app.id)}/${event!.eventId}/resend`;
    const deliver = async (status: string) =>
      (await dbHolding("events", event!.eventId))
        .prepare("UPDATE events SET status = ? WHERE id = ?")
        .bind(status, event!.eventId)
        .run();
    const send = vi.spyOn(env.NOTIFICATIONS, "send");
    await deliver("DELIVERED");
    expect((await call("POST", resend, { token })).status).toBe(202);

    await deliver("DELIVERED");
    const again = await call("POST", resend, { token });
    expect(again.status).toBe(429);
    expect(Number(again.headers.get("Retry-After"))).toBeGreaterThan(3500);
    expect(await json(again)).toMatchObject({ error: "rate_limit_exceeded" });
    expect(send).toHaveBeenCalledTimes(1);

    // A FAILED one is not a redelivery: it goes whenever asked.
    await deliver("FAILED");
    expect((await call("POST", resend, { token })).status).toBe(202);
    expect(send).toHaveBeenCalledTimes(2);
  });

  it(`allows ${RESEND_LIMIT} resends per partner in ${RESEND_WINDOW_SECONDS} s: the next answers 429 with Retry-After and sends nothing; another partner is not held`, async () => {
    const { token } = await signIn();
    const app = await createApplication(token);
    const [event] = (await json<{ data: NotificationView[] }>(await call("GET", notificationsOf(app.id), { token })))
      .data;
    const resend = `${notificationsOf(app.id)}/${event!.eventId}/resend`;
    const send = vi.spyOn(env.NOTIFICATIONS, "send").mockResolvedValue(undefined as never);
    for (let i = 0; i < RESEND_LIMIT; i++) expect((await call("POST", resend, { token })).status).toBe(202);

    const refused = await call("POST", resend, { token });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(Number(refused.headers.get("Retry-After"))).toBeLessThanOrEqual(RESEND_WINDOW_SECONDS);
    expect(await json(refused)).toMatchObject({
      error: "rate_limit_exceeded",
      error_description: `at most ${RESEND_LIMIT} resends in ${RESEND_WINDOW_SECONDS} seconds; retry after Retry-After seconds, or replay many events at once`,
    });
    expect(send).toHaveBeenCalledTimes(RESEND_LIMIT);
    // Probing unknown events counts too.
    expect((await call("POST", `${notificationsOf(app.id)}/01J0000000000000000000000Z/resend`, { token })).status).toBe(
      429,
    );

    const other = await signIn();
    const theirs = await createApplication(other.token);
    const [theirEvent] = (
      await json<{ data: NotificationView[] }>(await call("GET", notificationsOf(theirs.id), { token: other.token }))
    ).data;
    const res = await call("POST", `${notificationsOf(theirs.id)}/${theirEvent!.eventId}/resend`, {
      token: other.token,
    });
    expect(res.status).toBe(202);
  });
});
