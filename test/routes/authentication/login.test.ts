import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PBKDF2_ITERATIONS, sha256Hex } from "../../../src/auth/crypto";
import { call, createPartner, json, login } from "../../support/api";
import { dbOf } from "../../support/shards";

const LOGIN = "/authentication/v1/partner";
const body = (p: { username: string; password: string }) => ({ username: p.username, password: p.password });

afterEach(() => {
  vi.useRealTimers();
});

describe("POST /authentication/v1/partner", () => {
  it("issues an opaque token of at least 30 characters valid for 7200 seconds", async () => {
    const partner = await createPartner();
    const res = await call("POST", LOGIN, { body: { username: partner.username, password: partner.password } });
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const body = await json<{ accessToken: string; expiresIn: number }>(res);
    expect(Object.keys(body).sort()).toEqual(["accessToken", "expiresIn"]);
    expect(body.expiresIn).toBe(7200);
    expect(body.accessToken.length).toBeGreaterThanOrEqual(30);
  });

  it("stores only the token's hash, never the token", async () => {
    const partner = await createPartner();
    const token = await login(partner);
    const rows = await env.DB.prepare("SELECT * FROM access_tokens WHERE partner_id = ?").bind(partner.id).all();
    expect(rows.results).toHaveLength(1);
    expect(rows.results[0]!.token_hash).toBe(await sha256Hex(token));
    expect(JSON.stringify(rows.results)).not.toContain(token);
  });

  it("stores passwords as PBKDF2 with at most 100,000 iterations and never in clear", async () => {
    expect(PBKDF2_ITERATIONS).toBeLessThanOrEqual(100_000);
    const partner = await createPartner();
    const row = await dbOf(partner).prepare("SELECT * FROM partners WHERE id = ?").bind(partner.id).first<{
      password_hash: string;
      api_key_ciphertext: string;
    }>();
    const [scheme, iterations] = row!.password_hash.split("$");
    expect(scheme).toBe("pbkdf2-sha256");
    expect(Number(iterations)).toBeLessThanOrEqual(100_000);
    expect(JSON.stringify(row)).not.toContain(partner.password);
    expect(JSON.stringify(row)).not.toContain(partner.apiKey);
  });

  it.each([
    ["a wrong password", (p: { username: string }) => ({ username: p.username, password: "wrong-password" })],
    ["an unknown user name", () => ({ username: "nobody-at-all", password: "whatever-it-is" })],
  ])("answers 400 invalid_grant for %s, with errors[] like every 400", async (_, credentials) => {
    const partner = await createPartner();
    const res = await call("POST", LOGIN, { body: credentials(partner) });
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({
      error: "invalid_grant",
      error_description: "the user name or password is wrong",
      requestId: res.headers.get("X-Request-Id"),
      errors: [{ code: "INVALID_CREDENTIALS", message: "the user name or password is wrong", severity: "ERROR" }],
    });
  });

  it("answers 400 invalid_request naming each missing field", async () => {
    const res = await call("POST", LOGIN, { body: {} });
    expect(res.status).toBe(400);
    const body = await json<{ error: string; errors: { code: string; attribute: string }[] }>(res);
    expect(body.error).toBe("invalid_request");
    expect(body.errors.map((e) => [e.code, e.attribute])).toEqual([
      ["REQUIRED", "username"],
      ["REQUIRED", "password"],
    ]);
  });

  it("throttles a user name after 5 failed logins until the 15-minute window passes", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2027-03-02T10:00:00Z"));
    const partner = await createPartner();
    for (let i = 0; i < 5; i++) {
      const res = await call("POST", LOGIN, { body: { username: partner.username, password: "wrong" } });
      expect(res.status).toBe(400);
    }
    const blocked = await call("POST", LOGIN, { body: { username: partner.username, password: partner.password } });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(await json(blocked)).toMatchObject({ error: "rate_limit_exceeded" });
    // Another user name is not affected.
    const other = await createPartner();
    expect((await call("POST", LOGIN, { body: { username: other.username, password: other.password } })).status).toBe(
      200,
    );

    vi.setSystemTime(new Date("2027-03-02T10:15:00Z"));
    const later = await call("POST", LOGIN, { body: { username: partner.username, password: partner.password } });
    expect(later.status).toBe(200);
  });

  it("lets at most 5 of 60 parallel wrong passwords for one user name reach the password check", async () => {
    const partner = await createPartner();
    const answers = await Promise.all(
      Array.from({ length: 60 }, () =>
        call("POST", LOGIN, { body: { username: partner.username, password: "wrong" } }),
      ),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 400)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(55);
    for (const refused of answers.filter((r) => r.status === 429)) {
      expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    }
    // The right password is refused too now: the throttle holds before the password is looked at.
    expect((await call("POST", LOGIN, { body: body(partner) })).status).toBe(429);
  });

  it("holds the limit across any 15 minutes: no burst at a window boundary", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = Date.UTC(2027, 2, 2, 10, 14);
    const partner = await createPartner();
    const attempt = async (offsetMs: number) => {
      vi.setSystemTime(t0 + offsetMs);
      return (await call("POST", LOGIN, { body: { username: partner.username, password: "wrong" } })).status;
    };
    // Four failures in the first minute, the fifth just before a quarter hour, the next just after it.
    for (const at of [0, 10_000, 20_000, 30_000, 59_000]) expect(await attempt(at)).toBe(400);
    expect(await attempt(61_000)).toBe(429);
    expect(await attempt(15 * 60_000 - 1)).toBe(429);
    // Fifteen minutes after the first failure it no longer counts: one more guess, and no more.
    expect(await attempt(15 * 60_000)).toBe(400);
    expect(await attempt(15 * 60_000 + 1)).toBe(429);
  });

  it("does not count a successful login against the limit", async () => {
    const partner = await createPartner();
    for (let i = 0; i < 4; i++) {
      expect((await call("POST", LOGIN, { body: { username: partner.username, password: "wrong" } })).status).toBe(400);
    }
    for (let i = 0; i < 3; i++) expect((await call("POST", LOGIN, { body: body(partner) })).status).toBe(200);
    expect((await call("POST", LOGIN, { body: { username: partner.username, password: "wrong" } })).status).toBe(400);
    expect((await call("POST", LOGIN, { body: body(partner) })).status).toBe(429);
  });

  it("limits failed logins per client address too, whatever the user names", async () => {
    const address = { "CF-Connecting-IP": "198.51.100.77" };
    for (let i = 0; i < 20; i++) {
      const res = await call("POST", LOGIN, { body: { username: `nobody-${i}`, password: "wrong" }, headers: address });
      expect(res.status).toBe(400);
    }
    const partner = await createPartner();
    const refused = await call("POST", LOGIN, { body: body(partner), headers: address });
    expect(refused.status).toBe(429);
    expect(await json(refused)).toMatchObject({ error: "rate_limit_exceeded" });
    const elsewhere = await call("POST", LOGIN, {
      body: body(partner),
      headers: { "CF-Connecting-IP": "198.51.100.78" },
    });
    expect(elsewhere.status).toBe(200);
  });
});
