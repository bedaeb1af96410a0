import { afterEach, describe, expect, it, vi } from "vitest";
import { sha256Hex } from "../../src/auth/crypto";
import { call, json, login, signIn } from "../support/api";
import { applicationCount, applicationRequest, countRows } from "../support/factories";
import { app, expect422, shippedWithTotal } from "../support/orders";
import { dbOf } from "../support/shards";

afterEach(() => {
  vi.useRealTimers();
});

const T0 = new Date("2027-04-01T08:00:00Z").getTime();

describe("Idempotency-Key", () => {
  it("replays a refund's first response without creating a second refund", async () => {
    const { token } = await signIn();
    const id = await shippedWithTotal(token, 2000);
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
    const id = await shippedWithTotal(token, 2000);
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
    const id = await shippedWithTotal(token, 2000);
    const headers = { "Idempotency-Key": "op-1" };
    await call("PUT", `${app(id)}/order/send`, { token, headers });
    await expect422(await call("PUT", `${app(id)}/order/deliver`, { token, headers }), "IDEMPOTENCY_KEY_REUSED");
  });

  it("replays a refusal too: the same request gets the same answer", async () => {
    const { token } = await signIn();
    const id = await shippedWithTotal(token, 2000);
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
    const id = await shippedWithTotal(token, 2000);
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
    const id = await shippedWithTotal(token, 2000);
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

  it("lets the same request take over a key whose first request died mid-way, once its lease ran out", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(T0);
    const { partner, token } = await signIn();
    const body = applicationRequest();
    // What a runtime killed mid-request leaves behind: a claim with no answer.
    const hash = await requestHash("POST /financing/v1/applications", body);
    await dbOf(partner)
      .prepare(
        "INSERT INTO idempotency_keys (partner_id, key, target, request_hash, created_at, lease_until) VALUES (?, 'crashed', 'POST /financing/v1/applications', ?, ?, ?)",
      )
      .bind(partner.id, hash, T0, T0 + 60_000)
      .run();
    const request = { token, body, headers: { "Idempotency-Key": "crashed" } };

    vi.setSystemTime(T0 + 59_000);
    const waiting = await call("POST", "/financing/v1/applications", request);
    expect(waiting.status).toBe(409);
    expect(waiting.headers.get("Retry-After")).toBe("1");
    expect(await json(waiting)).toMatchObject({ errors: [{ code: "IDEMPOTENCY_KEY_IN_USE" }] });
    expect(await applicationCount(partner.id)).toBe(0);

    vi.setSystemTime(T0 + 60_001);
    const taken = await call("POST", "/financing/v1/applications", request);
    expect(taken.status).toBe(201);
    const replayed = await call("POST", "/financing/v1/applications", request);
    expect(replayed.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await json(replayed)).toEqual(await json(taken));
    expect(await applicationCount(partner.id)).toBe(1);
  }, 30_000);

  it("does not let another body take over an unanswered claim", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(T0);
    const { partner, token } = await signIn();
    await dbOf(partner)
      .prepare(
        "INSERT INTO idempotency_keys (partner_id, key, target, request_hash, created_at, lease_until) VALUES (?, 'crashed-2', 'POST /financing/v1/applications', 'other', ?, ?)",
      )
      .bind(partner.id, T0 - 120_000, T0 - 60_000)
      .run();
    const res = await call("POST", "/financing/v1/applications", {
      token,
      body: applicationRequest(),
      headers: { "Idempotency-Key": "crashed-2" },
    });
    await expect422(res, "IDEMPOTENCY_KEY_REUSED");
  });

  it("stores answers encrypted: no gateway token or customer data in the table", async () => {
    const { partner, token } = await signIn();
    const res = await call("POST", "/financing/v1/applications", {
      token,
      body: applicationRequest(),
      headers: { "Idempotency-Key": "sealed" },
    });
    const created = await json<{ id: string; gatewayRedirectUrl: string }>(res);
    const gatewayToken = created.gatewayRedirectUrl.split("/").at(-1)!;
    const row = await dbOf(partner)
      .prepare("SELECT * FROM idempotency_keys WHERE partner_id = ? AND key = 'sealed'")
      .bind(partner.id)
      .first<Record<string, unknown>>();
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(gatewayToken);
    expect(stored).not.toContain("Nováková");
    expect(row!.response_body).toMatch(/^v1\./);
  });
});

async function requestHash(target: string, body: unknown) {
  return sha256Hex(`${target}\n${JSON.stringify(body)}`);
}
