import { describe, expect, it } from "vitest";
import { json, signIn } from "../../support/api";
import { createApplication } from "../../support/factories";
import { app, expect422, put } from "../../support/orders";
import { application, at, confirmed, cron, DAY, HOUR, iso, T0, useClock } from "../../support/time";

useClock();

describe("PUT …/authorization/extend", () => {
  it("sets expiresAt to now + 28 days, never past 180 days after approval, then refuses (EXTENSION_LIMIT_REACHED)", async () => {
    const { partner, token: first } = await signIn();
    let token = first;
    const created = await confirmed(token);
    const extend = () => put(token, `${app(created.id)}/authorization/extend`);
    const deadlines: string[] = [];
    for (let day = 25; day < 200; day += 25) {
      token = await at(T0 + day * DAY, partner);
      const res = await extend();
      if (res.status !== 200) {
        await expect422(res, "EXTENSION_LIMIT_REACHED");
        break;
      }
      deadlines.push((await json<{ expiresAt: string }>(res)).expiresAt);
    }
    // Day 25 → 53, 50 → 78, …, 150 → 178, 175 → capped at day 180; day 200 has lapsed long before.
    expect(deadlines).toEqual([25, 50, 75, 100, 125, 150, 175].map((d) => iso(T0 + Math.min(d + 28, 180) * DAY)));
    token = await at(T0 + 179 * DAY, partner);
    await expect422(await extend(), "EXTENSION_LIMIT_REACHED");
  });

  it("refuses what it cannot extend: not approved, nothing left to send; and answers a retried key once", async () => {
    const { partner, token: first } = await signIn();
    let token = first;
    const waiting = await createApplication(token);
    await expect422(await put(token, `${app(waiting.id)}/authorization/extend`), "APPLICATION_NOT_READY");
    const sent = await confirmed(token);
    await put(token, `${app(sent.id)}/order/send`);
    await expect422(await put(token, `${app(sent.id)}/authorization/extend`), "NOTHING_TO_EXTEND");

    const keyed = await confirmed(token);
    token = await at(T0 + 10 * DAY, partner);
    const headers = { "Idempotency-Key": "extend-1" };
    const once = await put(token, `${app(keyed.id)}/authorization/extend`, undefined, headers);
    token = await at(T0 + 10 * DAY + HOUR, partner);
    const again = await put(token, `${app(keyed.id)}/authorization/extend`, undefined, headers);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await json(again)).toEqual(await json(once));
    expect((await application(token, keyed.id)).expiresAt).toBe(iso(T0 + 38 * DAY));
  });

  it("answers AUTHORIZATION_EXPIRED once the lapse cancelled the application, as before the sweep ran", async () => {
    const { partner, token: first } = await signIn();
    const approved = await confirmed(first);
    let token = await at(T0 + 28 * DAY, partner);
    await expect422(await put(token, `${app(approved.id)}/authorization/extend`), "AUTHORIZATION_EXPIRED");
    await cron();
    token = await at(T0 + 29 * DAY, partner);
    expect(await application(token, approved.id)).toMatchObject({ stateReason: "CANCELLED_EXPIRED" });
    await expect422(await put(token, `${app(approved.id)}/authorization/extend`), "AUTHORIZATION_EXPIRED");
  });
});
