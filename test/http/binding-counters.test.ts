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
  it("GET an application: one object call (rate limit, session and bookmark together) and only the handler's one read", async () => {
    const { token } = await signIn();
    const { id } = await createApplication(token);
    const res = await call("GET", `/financing/v1/applications/${id}`, { token, vars: COUNTING });
    expect(res.status).toBe(200);
    // The handler reads application, lines and documents in one statement (lines and documents as JSON).
    expect(cost(res)).toEqual({ objectCalls: 1, roundTrips: 1, statements: 1 });
  });

  it.each([
    ["a first page", ""],
    ["a first page, sorted and filtered", "?sort=-totalPrice&filter=state%7Ceq%7CPROCESSING"],
    ["a page after a cursor", "?after={second}&limit=1"],
    ["a page before a cursor, sorted the other way", "?before={second}&sort=-createdAt,totalPrice&limit=1"],
  ])("list applications, %s: one object call and one D1 round trip", async (_, query) => {
    const { token } = await signIn();
    const ids = [];
    for (let i = 0; i < 3; i++)
      ids.push((await createApplication(token, applicationRequest({ orderNumber: `COST-${i}` }))).id);
    const res = await call("GET", `/financing/v1/applications${query.replace("{second}", ids[1]!)}`, {
      token,
      vars: COUNTING,
    });
    expect(res.status).toBe(200);
    expect((await res.json<{ data: unknown[] }>()).data.length).toBeGreaterThan(0);
    // The cursor's check is a condition of the page's own statement: one statement, one round trip.
    expect(cost(res)).toEqual({ objectCalls: 1, roundTrips: 1, statements: 1 });
  });

  it("list applications after an unknown cursor: the page comes back empty, a second statement says why", async () => {
    const { token } = await signIn();
    await createApplication(token);
    const res = await call("GET", `/financing/v1/applications?after=${"0".repeat(26)}`, { token, vars: COUNTING });
    expect(res.status).toBe(400);
    expect(cost(res)).toEqual({ objectCalls: 1, roundTrips: 2, statements: 2 });
  });

  it("list applications after the last item: an empty page, also two round trips", async () => {
    const { token } = await signIn();
    const { id } = await createApplication(token);
    const res = await call("GET", `/financing/v1/applications?after=${id}`, { token, vars: COUNTING });
    expect(res.status).toBe(200);
    expect((await res.json<{ data: unknown[] }>()).data).toEqual([]);
    expect(cost(res)).toEqual({ objectCalls: 1, roundTrips: 2, statements: 2 });
  });

  // A write makes a second object call: it keeps the write's D1 bookmark for the token's next reads.
  it("a write is two object calls (quota, then the write's bookmark), one read and one batch", async () => {
    const { token } = await signIn();
    const { id } = await createApplication(token);
    const res = await call("PUT", `/financing/v1/applications/${id}/cancel`, { token, vars: COUNTING });
    expect(res.status).toBe(200);
    expect(cost(res)).toMatchObject({ objectCalls: 2, roundTrips: 2 });
  });

  it("create: two object calls and one batch (application, lines, event, the count of the partner's storage, and the audit log's entry with its count)", async () => {
    const { token } = await signIn();
    const res = await call("POST", "/financing/v1/applications", { token, body: applicationRequest(), vars: COUNTING });
    expect(res.status).toBe(201);
    expect(cost(res)).toEqual({ objectCalls: 2, roundTrips: 1, statements: 6 });
  });

  it("create with nine lines: the lines go in as three multi-row inserts (D1's 100-parameter limit)", async () => {
    const { token } = await signIn();
    const res = await call("POST", "/financing/v1/applications", { token, body: nineLines(), vars: COUNTING });
    expect(res.status).toBe(201);
    expect(cost(res)).toEqual({ objectCalls: 2, roundTrips: 1, statements: 8 });
  });

  it("an unknown token: the token's object, then the address quota, and no D1 query", async () => {
    const res = await call("GET", "/financing/v1/applications/x", { token: "n".repeat(43), vars: COUNTING });
    expect(res.status).toBe(401);
    expect(cost(res)).toEqual({ objectCalls: 2, roundTrips: 0, statements: 0 });
  });
});
