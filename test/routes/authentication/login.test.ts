import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PBKDF2_ITERATIONS, sha256Hex } from "../../../src/auth/crypto";
import { call, createPartner, json, login } from "../../support/api";

const LOGIN = "/authentication/v1/partner";
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
    const row = await env.DB.prepare("SELECT * FROM partners WHERE id = ?").bind(partner.id).first<{
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
  ])("answers 400 invalid_grant for %s", async (_, body) => {
    const partner = await createPartner();
    const res = await call("POST", LOGIN, { body: body(partner) });
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({
      error: "invalid_grant",
      error_description: "the user name or password is wrong",
      requestId: res.headers.get("X-Request-Id"),
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
});
