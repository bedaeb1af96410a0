import { describe, expect, it } from "vitest";
import { call, json, signIn } from "../../support/api";
import { applicationCount, createApplication, eventsOf, forceLineState, forceState } from "../../support/factories";

const path = (id: string) => `/financing/v1/applications/${id}`;

interface Application {
  id: string;
  state: string;
  stateReason: string;
  cancellation?: { reason: string; customReason?: string };
  order: { state: string; totalPrice: { amount: number }; items: { state: string }[] };
}

describe("GET /financing/v1/applications/{id}", () => {
  it("answers 404 for an unknown id", async () => {
    const { token } = await signIn();
    const res = await call("GET", path("01J000000000000000000000000"), { token });
    expect(res.status).toBe(404);
    expect(await json(res)).toMatchObject({ error: "not_found", error_description: "application not found" });
  });

  it("answers 404 for another partner's application, the same as for an unknown one", async () => {
    const owner = await signIn();
    const other = await signIn();
    const app = await createApplication(owner.token);
    const res = await call("GET", path(app.id), { token: other.token });
    expect(res.status).toBe(404);
    expect(await json(res)).toMatchObject({ error: "not_found", error_description: "application not found" });
  });
});

describe("PUT /financing/v1/applications/{id}/cancel", () => {
  it("cancels a PROCESSING application with the default reason, cancelling every line", async () => {
    const { token } = await signIn();
    const app = await createApplication(token);
    const res = await call("PUT", `${path(app.id)}/cancel`, { token });
    expect(res.status).toBe(200);
    const body = await json<Application>(res);
    expect(body).toMatchObject({
      state: "CANCELLED",
      stateReason: "CANCELLED_NOT_PAID",
      cancellation: { reason: "APPLICATION_CANCELLED_OTHER" },
      order: { state: "CANCELLED", totalPrice: { amount: 0 } },
    });
    expect(body.order.items.map((i) => i.state)).toEqual(["CANCELLED", "CANCELLED", "CANCELLED"]);
    expect(await json(await call("GET", path(app.id), { token }))).toEqual(body);
    expect(await eventsOf(app.id)).toEqual([
      { sequence: 1, state: "PROCESSING", stateReason: "PROCESSING_REDIRECT_NEEDED" },
      { sequence: 2, state: "CANCELLED", stateReason: "CANCELLED_NOT_PAID" },
    ]);
  });

  it("records the reason and custom reason given", async () => {
    const { token } = await signIn();
    const app = await createApplication(token);
    const res = await call("PUT", `${path(app.id)}/cancel`, {
      token,
      body: { reason: "APPLICATION_CANCELLED_BY_CUSTOMER", customReason: "changed their mind" },
    });
    expect((await json<Application>(res)).cancellation).toEqual({
      reason: "APPLICATION_CANCELLED_BY_CUSTOMER",
      customReason: "changed their mind",
    });
  });

  it("cancels a READY application while nothing is sent", async () => {
    const { token } = await signIn();
    const app = await createApplication(token);
    await forceState(app.id, "READY", "READY_TO_SHIP");
    const res = await call("PUT", `${path(app.id)}/cancel`, { token, body: {} });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ state: "CANCELLED", stateReason: "CANCELLED_NOT_PAID" });
  });

  it.each([
    ["READY with an item sent", "READY", "READY_SHIPPED", "SENT", "ORDER_ALREADY_SENT"],
    ["READY with an item delivered", "READY", "READY_SHIPPED", "DELIVERED", "ORDER_ALREADY_SENT"],
    ["REJECTED", "REJECTED", "REJECTED", null, "APPLICATION_REJECTED"],
    ["CANCELLED", "CANCELLED", "CANCELLED_NOT_PAID", null, "APPLICATION_ALREADY_CANCELLED"],
  ])("refuses in %s with 422 %s and changes nothing", async (_, state, reason, lineState, code) => {
    const { token } = await signIn();
    const app = await createApplication(token);
    await forceState(app.id, state, reason);
    if (lineState) await forceLineState(app.id, "KB-01", lineState);
    const before = await json(await call("GET", path(app.id), { token }));
    const res = await call("PUT", `${path(app.id)}/cancel`, { token });
    expect(res.status).toBe(422);
    expect(await json(res)).toMatchObject({
      error: "unprocessable",
      errors: [{ code, severity: "ERROR" }],
    });
    expect(await json(await call("GET", path(app.id), { token }))).toEqual(before);
    expect(await eventsOf(app.id)).toHaveLength(1);
  });

  it("refuses an unknown reason with 400", async () => {
    const { token } = await signIn();
    const app = await createApplication(token);
    const res = await call("PUT", `${path(app.id)}/cancel`, { token, body: { reason: "BORED" } });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ errors: [{ code: "INVALID_VALUE", attribute: "reason" }] });
  });

  it("answers 404 for another partner's application and leaves it alone", async () => {
    const owner = await signIn();
    const other = await signIn();
    const app = await createApplication(owner.token);
    expect((await call("PUT", `${path(app.id)}/cancel`, { token: other.token })).status).toBe(404);
    expect(await json(await call("GET", path(app.id), { token: owner.token }))).toMatchObject({
      state: "PROCESSING",
    });
    expect(await applicationCount(other.partner.id)).toBe(0);
  });

  it("lets exactly one of 8 racing cancels win, with one event", async () => {
    const { token } = await signIn();
    const app = await createApplication(token);
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => call("PUT", `${path(app.id)}/cancel`, { token })),
    );
    expect(responses.map((r) => r.status).sort()).toEqual([200, 422, 422, 422, 422, 422, 422, 422]);
    const refusals = await Promise.all(responses.filter((r) => r.status === 422).map((r) => json(r)));
    for (const refusal of refusals) {
      expect(refusal).toMatchObject({ errors: [{ code: "APPLICATION_ALREADY_CANCELLED" }] });
    }
    expect((await eventsOf(app.id)).map((e) => e.sequence)).toEqual([1, 2]);
  });

  it("reads a null reason (Skip Pay's form) as none given", async () => {
    const { token } = await signIn();
    const app = await createApplication(token);
    const res = await call("PUT", `/financing/v1/applications/${app.id}/cancel`, {
      token,
      body: { reason: null, customReason: null },
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ cancellation: { reason: "APPLICATION_CANCELLED_OTHER" } });
  });
});
