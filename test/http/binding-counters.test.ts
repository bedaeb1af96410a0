import { describe, expect, it } from "vitest";
import { call, signIn } from "../support/api";
import { applicationRequest, createApplication, nineLines } from "../support/factories";

const COUNTING = { COUNT_BINDINGS: "true" };

function cost(res: Response) {
  return {
    objectCalls: Number(res.headers.get("X-Count-DO-Calls")),
    roundTrips: Number(res.headers.get("X-Count-D1-Round-Trips")),
    statements: Number(res.headers.get("X-Count-D1-Statements")),
  };
}

describe("the cost of an authenticated request", () => {
  it("GET an application: one object call (rate limit and session together) and only the handler's one read", async () => {
    const { token } = await signIn();
    const { id } = await createApplication(token);
    const res = await call("GET", `/financing/v1/applications/${id}`, { token, vars: COUNTING });
    expect(res.status).toBe(200);
    // The handler reads application, lines and documents in one statement (lines and documents as JSON).
    expect(cost(res)).toEqual({ objectCalls: 1, roundTrips: 1, statements: 1 });
  });

  it("a write is one object call, one read and one batch", async () => {
    const { token } = await signIn();
    const { id } = await createApplication(token);
    const res = await call("PUT", `/financing/v1/applications/${id}/cancel`, { token, vars: COUNTING });
    expect(res.status).toBe(200);
    expect(cost(res)).toMatchObject({ objectCalls: 1, roundTrips: 2 });
  });

  it("create: one object call and one batch of inserts (application, lines, event)", async () => {
    const { token } = await signIn();
    const res = await call("POST", "/financing/v1/applications", { token, body: applicationRequest(), vars: COUNTING });
    expect(res.status).toBe(201);
    expect(cost(res)).toEqual({ objectCalls: 1, roundTrips: 1, statements: 3 });
  });

  it("create with nine lines: the lines go in as three multi-row inserts (D1's 100-parameter limit)", async () => {
    const { token } = await signIn();
    const res = await call("POST", "/financing/v1/applications", { token, body: nineLines(), vars: COUNTING });
    expect(res.status).toBe(201);
    expect(cost(res)).toEqual({ objectCalls: 1, roundTrips: 1, statements: 5 });
  });

  it("an unknown token: the token's object, then the address quota, and no D1 query", async () => {
    const res = await call("GET", "/financing/v1/applications/x", { token: "n".repeat(43), vars: COUNTING });
    expect(res.status).toBe(401);
    expect(cost(res)).toEqual({ objectCalls: 2, roundTrips: 0, statements: 0 });
  });
});
