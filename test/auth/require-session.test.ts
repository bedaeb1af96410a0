import { afterEach, describe, expect, it, vi } from "vitest";
import { call, json, signIn } from "../support/api";

const PROTECTED = "/financing/v1/applications/01J000000000000000000000000";

afterEach(() => {
  vi.useRealTimers();
});

describe("bearer authentication", () => {
  it("answers 401 invalid_request with a Bearer challenge when the token is missing", async () => {
    const res = await call("GET", PROTECTED);
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toBe('Bearer realm="financing"');
    expect(await json(res)).toEqual({
      error: "invalid_request",
      error_description: "the access token is missing",
      requestId: res.headers.get("X-Request-Id"),
    });
  });

  it.each([
    ["an unknown token", "x".repeat(43)],
    ["a malformed header", null],
  ])("answers 401 invalid_token for %s", async (_, token) => {
    const headers = token ? { Authorization: `Bearer ${token}` } : { Authorization: "Basic dXNlcjpwYXNz" };
    const res = await call("GET", PROTECTED, { headers });
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer realm="financing", error="invalid_token"/);
    expect(await json(res)).toMatchObject({ error: "invalid_token" });
  });

  it("accepts the token until 7200 seconds have passed, then answers invalid_token", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2027-03-02T10:00:00Z"));
    const { token } = await signIn();
    vi.setSystemTime(new Date("2027-03-02T11:59:59Z"));
    expect((await call("GET", PROTECTED, { token })).status).toBe(404);
    vi.setSystemTime(new Date("2027-03-02T12:00:00Z"));
    const expired = await call("GET", PROTECTED, { token });
    expect(expired.status).toBe(401);
    expect(await json(expired)).toMatchObject({ error: "invalid_token" });
  });
});
