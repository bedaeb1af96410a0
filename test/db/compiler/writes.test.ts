import { sql } from "drizzle-orm";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import { writeTable } from "../../../src/db/compiler/writes";

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
