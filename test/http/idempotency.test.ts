import { afterEach, describe, expect, it, vi } from "vitest";
import { call, json, login, signIn } from "../support/api";
import { applicationCount, applicationRequest, countRows } from "../support/factories";
import { app, approvedWithTotal, expect422 } from "../support/orders";

afterEach(() => {
  vi.useRealTimers();
});

const T0 = new Date("2027-04-01T08:00:00Z").getTime();

describe("Idempotency-Key", () => {
  it("replays a refund's first response without creating a second refund", async () => {
    const { token } = await signIn();
    const id = await approvedWithTotal(token, 2000);
    const request = {
      token,
      body: { totalPrice: { amount: 700, currency: "CZK" } },
      headers: { "Idempotency-Key": "refund-1" },
    };
    const first = await call("POST", `${app(id)}/refunds`, request);
    const again = await call("POST", `${app(id)}/refunds`, request);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();
    expect(await json(again)).toEqual(await json(first));
    expect(await countRows("refunds", "application_id = ?", id)).toBe(1);
  });

  it("replays a create, Location included, without a second application", async () => {
    const { partner, token } = await signIn();
    const request = { token, body: applicationRequest(), headers: { "Idempotency-Key": "create-1" } };
    const first = await call("POST", "/financing/v1/applications", request);
    const again = await call("POST", "/financing/v1/applications", request);
    expect(again.status).toBe(201);
    expect(again.headers.get("Location")).toBe(first.headers.get("Location"));
    expect(await applicationCount(partner.id)).toBe(1);
  });

  it("refuses the same key with another body (422 IDEMPOTENCY_KEY_REUSED)", async () => {
    const { token } = await signIn();
    const id = await approvedWithTotal(token, 2000);
    const headers = { "Idempotency-Key": "refund-2" };
    await call("POST", `${app(id)}/refunds`, {
      token,
      headers,
      body: { totalPrice: { amount: 100, currency: "CZK" } },
    });
    const other = await call("POST", `${app(id)}/refunds`, {
      token,
      headers,
      body: { totalPrice: { amount: 200, currency: "CZK" } },
    });
    await expect422(other, "IDEMPOTENCY_KEY_REUSED");
    expect(await countRows("refunds", "application_id = ?", id)).toBe(1);
  });

  it("refuses the same key on another path", async () => {
    const { token } = await signIn();
    const id = await approvedWithTotal(token, 2000);
    const headers = { "Idempotency-Key": "op-1" };
    await call("PUT", `${app(id)}/order/send`, { token, headers });
    await expect422(await call("PUT", `${app(id)}/order/deliver`, { token, headers }), "IDEMPOTENCY_KEY_REUSED");
  });

  it("replays a refusal too: the same request gets the same answer", async () => {
    const { token } = await signIn();
    const id = await approvedWithTotal(token, 2000);
    const request = {
      token,
      body: { totalPrice: { amount: 5000, currency: "CZK" } },
      headers: { "Idempotency-Key": "big" },
    };
    await expect422(await call("POST", `${app(id)}/refunds`, request), "REFUND_LIMIT_EXCEEDED");
    const again = await call("POST", `${app(id)}/refunds`, request);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    await expect422(again, "REFUND_LIMIT_EXCEEDED");
  });

  it("forgets a key after 24 hours: the request runs again", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(T0);
    const { partner, token } = await signIn();
    const id = await approvedWithTotal(token, 2000);
    const refund = { totalPrice: { amount: 100, currency: "CZK" } };
    const headers = { "Idempotency-Key": "daily" };
    await call("POST", `${app(id)}/refunds`, { token, headers, body: refund });
    // Tokens last two hours: log in again a day later.
    vi.setSystemTime(T0 + 24 * 60 * 60 * 1000 - 1);
    const later = await login(partner);
    const replay = await call("POST", `${app(id)}/refunds`, { token: later, headers, body: refund });
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    vi.setSystemTime(T0 + 24 * 60 * 60 * 1000);
    const fresh = await call("POST", `${app(id)}/refunds`, { token: later, headers, body: refund });
    expect(fresh.status).toBe(201);
    expect(fresh.headers.get("Idempotent-Replayed")).toBeNull();
    expect(await countRows("refunds", "application_id = ?", id)).toBe(2);
  });

  it("keeps keys per partner", async () => {
    const first = await signIn();
    const second = await signIn();
    const headers = { "Idempotency-Key": "shared-name" };
    const a = await call("POST", "/financing/v1/applications", {
      token: first.token,
      headers,
      body: applicationRequest(),
    });
    const b = await call("POST", "/financing/v1/applications", {
      token: second.token,
      headers,
      body: applicationRequest(),
    });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get("Idempotent-Replayed")).toBeNull();
  });

  it("answers concurrent retries with one execution", async () => {
    const { token } = await signIn();
    const id = await approvedWithTotal(token, 2000);
    const request = {
      token,
      body: { totalPrice: { amount: 10, currency: "CZK" } },
      headers: { "Idempotency-Key": "burst" },
    };
    const responses = await Promise.all(Array.from({ length: 5 }, () => call("POST", `${app(id)}/refunds`, request)));
    expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(await countRows("refunds", "application_id = ?", id)).toBe(1);
  });

  it("refuses a key longer than 255 characters (400)", async () => {
    const { token } = await signIn();
    const res = await call("POST", "/financing/v1/applications", {
      token,
      body: applicationRequest(),
      headers: { "Idempotency-Key": "k".repeat(256) },
    });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ errors: [{ attribute: "Idempotency-Key" }] });
  });
});
