/**
 * What the Worker's writes need to know of a table, read from Drizzle's schema at build time
 * (src/db/statements.ts writes it to generated/statements.ts): its columns in order, how each value is
 * encoded, and each column's default. src/db/writes.ts writes rows with it without Drizzle; see
 * ./index.ts for the Drizzle internals it relies on.
 */
import { getTableColumns, getTableName, is, SQL } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";

/** A column as a write binds it: its key in the row, its name in SQL, its encoding and its default. */
export interface WriteColumn {
  key: string;
  name: string;
  /** As Drizzle encodes the value: text as JSON, a boolean as 1 or 0; otherwise as it is. */
  encoding?: "json" | "boolean";
  /** The value of a column left out, as Drizzle's insert fills it in. */
  default?: string | number | boolean | null;
}

export interface WriteTable {
  name: string;
  columns: WriteColumn[];
}

/** How each kind of column Drizzle encodes; a kind not listed here is refused. */
const ENCODINGS: Record<string, WriteColumn["encoding"] | "plain"> = {
  SQLiteText: "plain",
  SQLiteInteger: "plain",
  SQLiteReal: "plain",
  SQLiteTextJson: "json",
  SQLiteBoolean: "boolean",
};

/** The table as writes bind it; throws on what the writes would not reproduce (an SQL or computed default). */
export function writeTable(table: SQLiteTable): WriteTable {
  const columns = Object.entries(getTableColumns(table)).map(([key, column]): WriteColumn => {
    const encoding = ENCODINGS[column.columnType];
    if (!encoding) throw new Error(`writeTable: ${key} is a ${column.columnType}`);
    if (is(column.default, SQL) || column.defaultFn || column.onUpdateFn) {
      throw new Error(`writeTable: ${key} has a default the writes cannot bind`);
    }
    const value = column.default as WriteColumn["default"] | undefined;
    return {
      key,
      name: column.name,
      ...(encoding === "plain" ? {} : { encoding }),
      ...(value === undefined ? {} : { default: value }),
    };
  });
  return { name: getTableName(table), columns };
}
