import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { MAX_BODY_BYTES } from "../../src/http/body-limit";
import { RateLimiter } from "../../src/rate-limit/durable-object";
import { call, json, login, signIn } from "../support/api";
import { QUOTA, T0, tokenObject, UNKNOWN_APPLICATION, useFakeClock } from "../support/rate-limit";

let address = 0;
/** A client address of its own for each test, so that anonymous quotas do not mix between tests. */
const nextAddress = () => ({ "CF-Connecting-IP": `203.0.113.${++address}` });

function quotaHeaders(res: Response) {
  return {
    limit: res.headers.get("X-Rate-Limit-Limit"),
    remaining: res.headers.get("X-Rate-Limit-Remaining"),
    reset: res.headers.get("X-Rate-Limit-Reset"),
  };
}

useFakeClock();

describe("quota headers", () => {
  it("are on responses of every kind: 200, 401, 404, 413, 429 and 500", async () => {
    const { token } = await signIn();
    const headers = nextAddress();
    const ok = await call("GET", "/v1/health", { vars: QUOTA, headers });
    const unauthorized = await call("GET", UNKNOWN_APPLICATION, { vars: QUOTA, headers });
    const notFound = await call("GET", UNKNOWN_APPLICATION, { vars: QUOTA, token });
    const tooLarge = await call("POST", "/authentication/v1/partner", {
      vars: QUOTA,
      headers,
      body: "x".repeat(MAX_BODY_BYTES + 1),
    });
    const broken = {
      prepare: () => {
        throw new Error("down");
      },
    } as unknown as D1Database;
    vi.spyOn(console, "error").mockImplementation(() => {});
    const serverError = await call("POST", "/authentication/v1/partner", {
      vars: { ...QUOTA, DB: broken },
      headers,
      body: { username: "x", password: "y" },
    });

    expect([ok, unauthorized, notFound, tooLarge, serverError].map((r) => r.status)).toEqual([200, 401, 404, 413, 500]);
    // The four anonymous requests share the address quota; the token has its own.
    expect([ok, unauthorized, tooLarge, serverError].map((r) => quotaHeaders(r).remaining)).toEqual([
      "19",
      "18",
      "17",
      "16",
    ]);
    expect(quotaHeaders(notFound)).toEqual({ limit: "20", remaining: "19", reset: "60" });
  });

  it("count down the period: X-Rate-Limit-Reset is the seconds left in the window", async () => {
    const { token } = await signIn();
    vi.setSystemTime(new Date(T0.getTime() + 45_500));
    const res = await call("GET", UNKNOWN_APPLICATION, { vars: QUOTA, token });
    expect(quotaHeaders(res)).toEqual({ limit: "20", remaining: "19", reset: "15" });
  });
});

describe("the quota", () => {
  it("counts exactly under 50 concurrent requests: 20 served, 30 refused with 429 and Retry-After", async () => {
    const { token } = await signIn();
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => call("GET", UNKNOWN_APPLICATION, { vars: QUOTA, token })),
    );
    const served = responses.filter((r) => r.status === 404);
    const refused = responses.filter((r) => r.status === 429);
    expect(served).toHaveLength(20);
    expect(refused).toHaveLength(30);
    // Every served request saw a different remaining count: none was counted twice or skipped.
    expect(served.map((r) => Number(r.headers.get("X-Rate-Limit-Remaining"))).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i),
    );
    const refusal = refused[0]!;
    expect(refusal.headers.get("Retry-After")).toBe("60");
    expect(quotaHeaders(refusal)).toEqual({ limit: "20", remaining: "0", reset: "60" });
    expect(await json(refusal)).toMatchObject({ error: "rate_limit_exceeded", requestId: expect.any(String) });
  });

  it("resets when the window passes", async () => {
    const { token } = await signIn();
    for (let i = 0; i < 20; i++) await call("GET", UNKNOWN_APPLICATION, { vars: QUOTA, token });
    expect((await call("GET", UNKNOWN_APPLICATION, { vars: QUOTA, token })).status).toBe(429);
    vi.setSystemTime(new Date(T0.getTime() + 60_000));
    const next = await call("GET", UNKNOWN_APPLICATION, { vars: QUOTA, token });
    expect(next.status).toBe(404);
    expect(quotaHeaders(next).remaining).toBe("19");
  });

  it("keeps its count when the object is evicted in the middle of a window", async () => {
    const { token } = await signIn();
    for (let i = 0; i < 5; i++) await call("GET", UNKNOWN_APPLICATION, { vars: QUOTA, token });
    await evictDurableObject(await tokenObject(token));
    const res = await call("GET", UNKNOWN_APPLICATION, { vars: QUOTA, token });
    // The new instance reads the session back from storage: still authenticated, same count.
    expect(res.status).toBe(404);
    expect(quotaHeaders(res).remaining).toBe("14");
  });

  it("is separate for two tokens, also of the same partner", async () => {
    const { partner, token } = await signIn();
    const second = await login(partner);
    for (let i = 0; i < 20; i++) await call("GET", UNKNOWN_APPLICATION, { vars: QUOTA, token });
    expect((await call("GET", UNKNOWN_APPLICATION, { vars: QUOTA, token })).status).toBe(429);
    expect((await call("GET", UNKNOWN_APPLICATION, { vars: QUOTA, token: second })).status).toBe(404);
  });

  it("limits requests without a valid token per client address", async () => {
    const first = nextAddress();
    const second = nextAddress();
    for (let i = 0; i < 20; i++) await call("GET", "/v1/health", { vars: QUOTA, headers: first });
    expect((await call("GET", "/v1/health", { vars: QUOTA, headers: first })).status).toBe(429);
    // An invalid token does not escape the address quota.
    const invalid = await call("GET", UNKNOWN_APPLICATION, {
      vars: QUOTA,
      headers: { ...first, Authorization: `Bearer ${"z".repeat(43)}` },
    });
    expect(invalid.status).toBe(429);
    expect((await call("GET", "/v1/health", { vars: QUOTA, headers: second })).status).toBe(200);
  });
});

describe("when the rate limiter cannot be reached", () => {
  it("fails open for a valid token, checked against D1 instead, and logs a warning", async () => {
    const { token } = await signIn();
    vi.spyOn(RateLimiter.prototype, "hit").mockImplementation(() => {
      throw new Error("object unavailable");
    });
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const res = await call("GET", UNKNOWN_APPLICATION, { vars: QUOTA, token });
    expect(res.status).toBe(404);
    expect(quotaHeaders(res)).toEqual({ limit: "20", remaining: "20", reset: "60" });
    expect(warn.mock.calls.map((c) => String(c[0])).join()).toContain("rate limiter unreachable");
  });

  it("reads the partner's wire profile with the token from D1: a SKIP_PAY partner is answered in Skip Pay's shapes", async () => {
    const { token } = await signIn({ wireProfile: "SKIP_PAY" });
    vi.spyOn(RateLimiter.prototype, "hit").mockImplementation(() => {
      throw new Error("object unavailable");
    });
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const res = await call("GET", UNKNOWN_APPLICATION, { token, wire: "SKIP_PAY" });
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({
      errors: [
        {
          code: "APPLICATION_NOT_FOUND",
          message: "application not found",
          severity: "ERROR",
          ticketId: expect.any(String),
        },
      ],
    });
  });

  it("still refuses an invalid, expired or revoked token", async () => {
    const { token } = await signIn();
    await call("DELETE", "/authentication/v1/partner", { token });
    const expired = await signIn();
    vi.spyOn(RateLimiter.prototype, "hit").mockImplementation(() => {
      throw new Error("object unavailable");
    });
    vi.spyOn(console, "warn").mockImplementation(() => {});
    expect((await call("GET", UNKNOWN_APPLICATION, { token })).status).toBe(401);
    expect((await call("GET", UNKNOWN_APPLICATION, { token: "q".repeat(43) })).status).toBe(401);
    vi.setSystemTime(new Date(T0.getTime() + 7_200_000));
    expect((await call("GET", UNKNOWN_APPLICATION, { token: expired.token })).status).toBe(401);
  });
});
