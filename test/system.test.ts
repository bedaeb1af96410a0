import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

describe("system", () => {
  it("GET /v1/health answers OK without a token", async () => {
    const res = await exports.default.fetch("http://api.test/v1/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "OK" });
    expect(res.headers.get("X-Request-Id")).toBeTruthy();
  });
});
