import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { database } from "../../../src/db/client";
import { relationalStatement, selectStatement } from "../../../src/db/compiler";
import { applications } from "../../../src/db/schema";

describe("building a statement ahead of time", () => {
  it("keeps placeholders by name and findFirst's own limit, in the order the SQL binds them", () => {
    const db = database(env);
    const built = relationalStatement(
      db.query.applications.findFirst({
        columns: { id: true, agreementTermsAndConditions: true, customer: true },
        where: (a, { and, eq }) => and(eq(a.partnerId, sql.placeholder("partner")), eq(a.id, sql.placeholder("id"))),
      }),
    );
    expect(built).toStrictEqual({
      sql: expect.stringMatching(/"partner_id" = \? and .*"id" = \?\) limit \?$/),
      params: [{ placeholder: "partner" }, { placeholder: "id" }, { value: 1 }],
      first: true,
      fields: [
        { key: "id" },
        { key: "agreementTermsAndConditions", decode: "boolean" },
        { key: "customer", decode: "json" },
      ],
    });
  });

  it("refuses a value fixed into the query, which every later run would reuse", () => {
    const db = database(env);
    const query = db.select({ id: applications.id }).from(applications).where(eq(applications.id, "01JFIXED"));
    expect(() => selectStatement(query, true)).toThrow(/parameter 1 is neither a placeholder/);
  });

  it("refuses a field whose decoding it has no plan for, when built rather than on a row", () => {
    const db = database(env);
    const query = db
      .select({ doubled: sql<number>`${applications.approvedAmount} * 2`.mapWith(Number) })
      .from(applications)
      .where(eq(applications.id, sql.placeholder("id")));
    expect(() => selectStatement(query, true)).toThrow(/no row plan for how doubled is decoded/);
  });
});
