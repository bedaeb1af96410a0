import { describe, expect, it } from "vitest";
import { call, json } from "../support/api";

describe("the OpenAPI document", () => {
  it("GET /openapi.json is an OpenAPI 3.1 document listing login and health", async () => {
    const res = await call("GET", "/openapi.json");
    expect(res.status).toBe(200);
    const doc = await json<{ openapi: string; paths: Record<string, Record<string, unknown>> }>(res);
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths["/authentication/v1/partner"]!).sort()).toEqual(["delete", "post"]);
    expect(Object.keys(doc.paths["/v1/health"]!)).toEqual(["get"]);
  });

  it("declares for every write of the partner API the 409, 413 and 415 it can answer", async () => {
    const doc = await json<{ paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }>(
      await call("GET", "/openapi.json"),
    );
    const writes = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith("/financing/"))
      .flatMap(([path, methods]) =>
        Object.entries(methods)
          .filter(([method]) => method === "post" || method === "put")
          .map(([method, op]) => ({ route: `${method} ${path}`, statuses: Object.keys(op.responses) })),
      );
    // create, cancel, change, cancel items, send, deliver, return, refund, resend and replay
    // notifications, rotate the signing secret
    expect(writes).toHaveLength(11);
    for (const { route, statuses } of writes) {
      expect({ route, statuses }).toEqual({ route, statuses: expect.arrayContaining(["409", "413", "415"]) });
    }
  });
});
