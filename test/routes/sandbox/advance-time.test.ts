import { describe, expect, it } from "vitest";
import { call, json, signIn } from "../../support/api";
import { createApplication } from "../../support/factories";
import { app, order } from "../../support/orders";
import { application, confirmed, DAY, events, iso, T0, useClock } from "../../support/time";

useClock();

const advance = (token: string, id: string, seconds: number) =>
  call("POST", `/financing/v1/sandbox/applications/${id}/advance-time`, { token, body: { seconds } });

describe("POST /financing/v1/sandbox/applications/{applicationId}/advance-time", () => {
  it("moves the deadlines closer and applies what became due at once: day 21 reminds, day 28 lapses", async () => {
    const { token } = await signIn();
    const created = await confirmed(token);
    await call("PUT", `${app(created.id)}/order/send`, { token, body: { items: [{ code: "BK-7" }] } });

    const reminded = await advance(token, created.id, 21 * 86_400);
    expect(reminded.status).toBe(200);
    // The deadline is 7 days away now, on the application's clock.
    expect(await json(reminded)).toMatchObject({ state: "READY", expiresAt: iso(T0 + 7 * DAY) });
    expect((await events(created.id)).at(-1)).toMatchObject({
      type: "AUTHORIZATION_EXPIRING",
      expiresAt: T0 + 7 * DAY,
    });

    const lapsed = await advance(token, created.id, 7 * 86_400);
    expect(await json(lapsed)).toMatchObject({ state: "READY", stateReason: "READY_SHIPPED" });
    expect((await order(token, created.id)).items.map((i) => [i.code, i.state])).toEqual([
      ["KB-01", "CANCELLED"],
      ["BK-7", "SENT"],
      ["SHIP", "CANCELLED"],
    ]);
    expect((await application(token, created.id)).expiresAt).toBeUndefined();
  });

  it("settles a pending review once its time came, and lapses a customer's deadline", async () => {
    const { token } = await signIn();
    const review = await confirmed(token, "jana+review@example.com");
    expect(await json(await advance(token, review.id, 599))).toMatchObject({ stateReason: "PROCESSING_MANUAL_REVIEW" });
    expect(await json(await advance(token, review.id, 1))).toMatchObject({
      state: "READY",
      stateReason: "READY_TO_SHIP",
    });

    const waiting = await createApplication(token);
    expect(await json(await advance(token, waiting.id, 72 * 3600))).toMatchObject({
      state: "CANCELLED",
      stateReason: "CANCELLED_EXPIRED",
    });
  });

  it("answers 404 for another partner's application and refuses a step out of range (400)", async () => {
    const owner = await signIn();
    const other = await signIn();
    const created = await createApplication(owner.token);
    expect((await advance(other.token, created.id, 60)).status).toBe(404);
    for (const seconds of [0, 400 * 86_400 + 1, 1.5]) {
      expect((await advance(owner.token, created.id, seconds)).status).toBe(400);
    }
  });
});
