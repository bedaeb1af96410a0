import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import {
  buildStatements,
  buildWriteTables,
  relationalStatement,
  selectStatement,
  writeTable,
} from "../../build/statements";
import { STATEMENTS, WRITE_TABLES } from "../../generated/statements";
import { database } from "../../src/db/client";
import { applications } from "../../src/db/schema";

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

describe("writeTable", () => {
  it("reads each column's name, encoding and literal default, in the table's order", () => {
    const table = sqliteTable("things", {
      id: text("id").primaryKey(),
      tags: text("tags", { mode: "json" }),
      open: integer("is_open", { mode: "boolean" }).notNull().default(true),
      count: integer("count").notNull().default(0),
    });
    expect(writeTable(table)).toEqual({
      name: "things",
      columns: [
        { key: "id", name: "id" },
        { key: "tags", name: "tags", encoding: "json" },
        { key: "open", name: "is_open", encoding: "boolean", default: true },
        { key: "count", name: "count", default: 0 },
      ],
    });
  });

  it.each([
    ["an SQL default", { at: integer("at").default(sql`(unixepoch())`) }],
    ["a computed default", { id: text("id").$defaultFn(() => "x") }],
    ["an update default", { at: integer("at").$onUpdateFn(() => 1) }],
    ["a kind it does not encode", { at: integer("at", { mode: "timestamp" }) }],
  ])("refuses a table with %s: the writes could not bind it as Drizzle does", (_, columns) => {
    expect(() => writeTable(sqliteTable("things", columns))).toThrow(/writeTable/);
  });
});

describe("the statements built ahead of time", () => {
  it("are, as the build wrote them, what the Worker's Drizzle builds from the same queries", () => {
    const built = buildStatements(database(env));
    expect(Object.keys(STATEMENTS).sort()).toEqual(Object.keys(built).sort());
    expect(JSON.parse(JSON.stringify(STATEMENTS))).toStrictEqual(JSON.parse(JSON.stringify(built)));
  });

  it("hold the write tables as the Worker's schema reads them", () => {
    expect(WRITE_TABLES).toStrictEqual(JSON.parse(JSON.stringify(buildWriteTables())));
  });
});
