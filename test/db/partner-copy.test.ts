/**
 * The tables a partner's move copies (src/db/partner-copy.ts) against the schema and the triggers of
 * migration 0019: every table is moved or named as not the partner's, and every moved table's changes
 * are named while the move copies, by its own triggers or by its parent's.
 */
import { env } from "cloudflare:workers";
import { is } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import { NOT_MOVED, PARTNER_TABLES } from "../../src/db/partner-copy";
import * as schema from "../../src/db/schema";

const tableName = (table: SQLiteTable) => getTableConfig(table).name;

describe("the tables of a partner's move", () => {
  it("covers every table of the schema: moved with the partner, or named as not the partner's", () => {
    const tables = Object.values(schema)
      .filter((value) => is(value, SQLiteTable))
      .map((table) => tableName(table as SQLiteTable))
      .sort();
    const covered = [...PARTNER_TABLES.map(({ table }) => tableName(table)), ...Object.keys(NOT_MOVED)].sort();
    expect(covered).toEqual(tables);
  });

  it("names the changes of every table with a partner_id by its triggers, and those of the others by their parent's", async () => {
    const { results } = await env.DB.prepare(
      "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%_partner_move_%'",
    ).all<{ name: string; sql: string }>();
    const triggers = new Map(results.map(({ name, sql }) => [name, sql]));
    for (const { table, follows } of PARTNER_TABLES) {
      const name = tableName(table);
      for (const write of ["insert", "update", "delete"]) {
        const trigger = triggers.get(`${name}_partner_move_${write}`);
        if (follows) {
          expect(trigger, `${name} follows ${tableName(follows.parent)}`).toBeUndefined();
          continue;
        }
        // What a partner that is not moving pays, on every row it writes: this one primary-key lookup.
        const row = write === "delete" ? "OLD" : "NEW";
        const partner = name === "partners" ? "id" : "partner_id";
        const switchLetThrough = name === "partners" && write === "update" ? "OLD.`shard` = NEW.`shard` AND " : "";
        expect(trigger, `${name}_partner_move_${write}`).toContain(
          `WHEN ${switchLetThrough}EXISTS (SELECT 1 FROM \`partner_moves\` WHERE \`partner_id\` = ${row}.\`${partner}\`)\nBEGIN`,
        );
      }
    }
  });
});
