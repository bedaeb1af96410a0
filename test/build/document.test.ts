import { describe, expect, inject, it } from "vitest";
import { openApiDocument } from "../../build/document";
import { call, json } from "../support/api";
import { exampleProblems } from "../support/openapi-check";

describe("the OpenAPI document", () => {
  it("is, byte for byte, the one every test's response check uses (built once per run, in Node)", async () => {
    expect(JSON.stringify(await openApiDocument(), null, 2)).toBe(inject("openApiDocument"));
  });

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
    // notifications, rotate the signing secret, extend the authorization, precheck, add tracking to a
    // shipment, and the sandbox's advance of the clock and close of the payouts
    expect(writes).toHaveLength(16);
    for (const { route, statuses } of writes) {
      expect({ route, statuses }).toEqual({ route, statuses: expect.arrayContaining(["409", "413", "415"]) });
    }
  });

  it("has an example for every request body and JSON response, each valid against its own schema", () => {
    expect(exampleProblems()).toEqual([]);
  });

  it("names every operation in the partner's words, tags it, and declares its security", async () => {
    const doc = await json<{
      tags: { name: string; description: string }[];
      paths: Record<string, Record<string, { operationId?: string; tags?: string[]; security?: unknown[] }>>;
      webhooks: Record<string, unknown>;
      servers: unknown[];
    }>(await call("GET", "/openapi.json"));
    const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods));
    const ids = operations.map((o) => o.operationId);
    expect(ids.every((id) => typeof id === "string" && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(
      expect.arrayContaining([
        "createApplication",
        "getApplication",
        "listApplications",
        "cancelItems",
        "createRefund",
      ]),
    );
    const tagged = new Set(doc.tags.map((t) => t.name));
    expect(operations.every((o) => o.tags?.length === 1 && tagged.has(o.tags[0]!))).toBe(true);
    expect(doc.tags.every((t) => t.description.length > 0)).toBe(true);
    expect(operations.every((o) => Array.isArray(o.security))).toBe(true);
    expect(Object.keys(doc.webhooks)).toEqual(["applicationStateChanged", "authorizationExpiring"]);
    expect(doc.servers.length).toBeGreaterThan(0);
  });

  it("declares Idempotency-Key on every write and the 422 codes of each refusing operation as an enum", async () => {
    // The error detail of a 422: the shared ErrorDetail narrowed to the operation's own codes.
    type Refusal = {
      content: Record<string, { schema: { properties: { errors: { items: { allOf: CodeEnum[] } } } } }>;
    };
    type CodeEnum = { properties?: { code?: { enum?: string[] } } };
    const doc = await json<{
      paths: Record<
        string,
        Record<string, { parameters?: { name: string; in: string }[]; responses: Record<string, Refusal> }>
      >;
    }>(await call("GET", "/openapi.json"));
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        if (!path.startsWith("/financing/") || (method !== "post" && method !== "put")) continue;
        expect(
          operation.parameters?.some((p) => p.name === "Idempotency-Key" && p.in === "header"),
          `${method} ${path}`,
        ).toBe(true);
        const refusal = operation.responses["422"]?.content["application/json"]?.schema.properties.errors.items;
        const codes = refusal?.allOf[1]?.properties?.code?.enum;
        expect(codes, `${method} ${path}`).toContain("IDEMPOTENCY_KEY_REUSED");
      }
    }
  });
});
