import { describe, expect, it } from "vitest";
import { call, json, signIn } from "../../support/api";
import { app, shipped } from "../../support/orders";
import { personBrowser } from "../../support/people";

interface AuditPage {
  data: {
    id: string;
    operation: string;
    source: string;
    actor: { type: string; id?: string; name?: string };
    outcome: string;
    code?: string;
    applicationId?: string;
    totalPrice?: { amount: number; currency: string };
  }[];
  pagingInfo: { itemsPerPage: number; nextPage?: string; prevPage?: string };
}

const list = async (token: string, query = "") => {
  const res = await call("GET", `/financing/v1/audit-events${query}`, { token });
  return { status: res.status, body: await json<AuditPage>(res) };
};

describe("GET /financing/v1/audit-events", () => {
  it("lists the partner's console actions and API writes, oldest first, and never another partner's", async () => {
    const { partner, token } = await signIn();
    const other = await signIn();
    const id = await shipped(token);
    await call("POST", `${app(id)}/refunds`, {
      token,
      body: { totalPrice: { amount: 500, currency: "CZK" }, reason: "goodwill" },
    });
    const { person } = await personBrowser(partner, "VIEWER");
    const { status, body } = await list(token);
    expect(status).toBe(200);
    expect(body.data.map((e) => [e.source, e.operation, e.outcome])).toEqual([
      ["API", "createApplication", "SUCCEEDED"],
      ["API", "sendItems", "SUCCEEDED"],
      ["API", "createRefund", "SUCCEEDED"],
      ["CONSOLE", "signIn", "SUCCEEDED"],
    ]);
    expect(body.data[2]).toMatchObject({
      applicationId: id,
      totalPrice: { amount: 500, currency: "CZK" },
      reason: "goodwill",
      actor: { type: "API" },
    });
    expect(body.data[3]!.actor).toEqual({ type: "PERSON", id: person.id, name: person.email });
    expect((await list(other.token)).body.data).toEqual([]);
  });

  it("filters by operation, source, who, application and outcome, pages with cursors and sorts newest first", async () => {
    const { token } = await signIn();
    const id = await shipped(token);
    await call("POST", `${app(id)}/refunds`, { token, body: { totalPrice: { amount: 99999999, currency: "CZK" } } });
    const refused = await list(token, "?filter=outcome|eq|REFUSED");
    expect(refused.body.data.map((e) => [e.operation, e.code])).toEqual([["createRefund", "REFUND_LIMIT_EXCEEDED"]]);
    const actorId = refused.body.data[0]!.actor.id!;
    expect((await list(token, `?filter=actorId|eq|${actorId};applicationId|eq|${id}`)).body.data).toHaveLength(3);
    expect(
      (await list(token, "?filter=operation|in|sendItems,createApplication;source|eq|API")).body.data,
    ).toHaveLength(2);
    const newest = await list(token, "?sort=-id&limit=1");
    expect(newest.body.data[0]!.operation).toBe("createRefund");
    expect(newest.body.pagingInfo.nextPage).toMatch(/^\/financing\/v1\/audit-events\?.*after=/);
    const next = await call("GET", newest.body.pagingInfo.nextPage!, { token });
    expect((await json<AuditPage>(next)).data[0]!.operation).toBe("sendItems");
  });

  it("refuses an unknown filter, operator or value with 400 naming it", async () => {
    const { token } = await signIn();
    for (const query of ["?filter=who|eq|x", "?filter=outcome|gt|REFUSED", "?filter=source|eq|FAX", "?limit=0"]) {
      const res = await call("GET", `/financing/v1/audit-events${query}`, { token });
      expect(res.status, query).toBe(400);
      expect(await json(res)).toMatchObject({ error: "invalid_request" });
    }
    expect((await call("GET", "/financing/v1/audit-events")).status).toBe(401);
  });
});
