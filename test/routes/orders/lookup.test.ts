import { describe, expect, it } from "vitest";
import { call, json, signIn } from "../../support/api";
import { applicationRequest, createApplication } from "../../support/factories";
import { app, approved, type OrderView, order, put } from "../../support/orders";

const LOOKUP = "/financing/v1/orders";

describe("GET /financing/v1/orders", () => {
  it("finds one order by its number, a variable symbol or its application, in any state, as the order operations answer it", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    await put(token, `${app(id)}/order/send`, { items: [{ code: "BK-7" }] });
    const expected = await order(token, id);
    const { number } = (await json<{ order: { number: string } }>(await call("GET", app(id), { token }))).order;
    for (const query of [
      `orderNumber=${encodeURIComponent(number)}`,
      `orderVariableSymbol=2026000123&orderNumber=${encodeURIComponent(number)}`,
      `applicationId=${id}`,
    ]) {
      const res = await call("GET", `${LOOKUP}?${query}`, { token });
      expect(res.status).toBe(200);
      const body = await json<OrderView>(res);
      expect(body).toEqual({
        ...expected,
        number,
        applicationInfo: { id, state: "READY", stateReason: "READY_SHIPPED" },
      });
    }
  });

  it("answers the latest of several applications of one order number, and every criterion given must match", async () => {
    const { token } = await signIn();
    const body = applicationRequest({ orderNumber: "REUSED-1" });
    const first = await createApplication(token, body);
    await put(token, `${app(first.id)}/cancel`, {});
    const second = await createApplication(token, { ...body, type: "PAY_IN_THREE" });
    const latest = await json<OrderView>(await call("GET", `${LOOKUP}?orderNumber=REUSED-1`, { token }));
    expect(latest.applicationInfo).toMatchObject({ id: second.id, state: "PROCESSING" });
    const cancelled = await call("GET", `${LOOKUP}?orderNumber=REUSED-1&applicationId=${first.id}`, { token });
    expect((await json<OrderView>(cancelled)).applicationInfo).toMatchObject({ id: first.id, state: "CANCELLED" });
    const mismatch = await call("GET", `${LOOKUP}?orderNumber=OTHER&applicationId=${first.id}`, { token });
    expect(mismatch.status).toBe(404);
  });

  it("is 404 for another partner's order, 400 without a criterion or with a malformed one", async () => {
    const { token } = await signIn();
    const mine = await createApplication(token);
    const stranger = await signIn();
    const foreign = await call("GET", `${LOOKUP}?applicationId=${mine.id}`, { token: stranger.token });
    expect(foreign.status).toBe(404);
    expect(await json(foreign)).toMatchObject({ error: "not_found" });
    const none = await call("GET", LOOKUP, { token });
    expect(none.status).toBe(400);
    expect(await json(none)).toMatchObject({ errors: [{ code: "REQUIRED", attribute: "orderNumber" }] });
    const malformed = await call("GET", `${LOOKUP}?orderVariableSymbol=ABC`, { token });
    expect(malformed.status).toBe(400);
    expect((await call("GET", LOOKUP)).status).toBe(401);
  });
});
