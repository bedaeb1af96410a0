import { describe, expect, it } from "vitest";
import { call, json } from "../../support/api";

describe("GET /v1/health", () => {
  it("GET /v1/health answers OK without a token", async () => {
    const res = await call("GET", "/v1/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "OK" });
  });

  const broken = {
    prepare: () => {
      throw new Error("D1 is down");
    },
  } as unknown as D1Database;

  it.each([
    "DB",
    "SHARD_1",
  ])("GET /v1/health answers 503 in the error shape when a database (%s) does not answer", async (binding) => {
    const res = await call("GET", "/v1/health", { vars: { [binding]: broken } });
    expect(res.status).toBe(503);
    expect(res.headers.get("Retry-After")).toBe("5");
    const body = await json(res);
    expect(body).toMatchObject({ error: "service_unavailable", requestId: res.headers.get("X-Request-Id") });
    expect(JSON.stringify(body)).not.toContain("D1 is down");
  });
});
