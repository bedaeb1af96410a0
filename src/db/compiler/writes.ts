/** Inserts and updates prepared once per shape (see ./index.ts for the Drizzle internals they rely on). */
import { and, eq, getTableColumns, is, Param, Placeholder, SQL, sql } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Database } from "../client";

interface BoundParam {
  row: number;
  key: string;
  encode: (value: unknown) => unknown;
  /** The column's default, for a value left out (as Drizzle's own insert would use it). */
  fallback: () => unknown;
}

/** Insert statements per table and row count: SQL text and where each parameter comes from. */
const inserts = new WeakMap<SQLiteTable, Map<number, { sql: string; params: BoundParam[] }>>();

/**
 * An insert of whole rows as a D1 statement, for a batch: its SQL is Drizzle's, built once per table
 * and row count (with a placeholder per column), then only bound per request. Drizzle's builders cost
 * more CPU than the batch itself on create, the hottest write. Values are encoded as Drizzle encodes
 * them (JSON, booleans); null stays NULL, a value left out takes the column's default.
 */
export function insertRows<T extends SQLiteTable>(
  db: Database,
  table: T,
  rows: T["$inferInsert"][],
): D1PreparedStatement {
  let byCount = inserts.get(table);
  if (!byCount) {
    byCount = new Map();
    inserts.set(table, byCount);
  }
  let built = byCount.get(rows.length);
  if (!built) {
    const columns = getTableColumns(table);
    const keys = Object.keys(columns);
    const query = db
      .insert(table)
      .values(
        rows.map(
          (_, row) =>
            Object.fromEntries(keys.map((key) => [key, sql.placeholder(`${row}:${key}`)])) as T["$inferInsert"],
        ),
      )
      .toSQL();
    const params = query.params.map((param) => {
      if (!is(param, Param) || !is(param.value, Placeholder))
        throw new Error("insertRows: a value that is not a placeholder");
      const [row, key] = param.value.name.split(":") as [string, string];
      const column = columns[key]!;
      if (is(column.default, SQL)) throw new Error(`insertRows: ${key} has an SQL default`);
      return {
        row: Number(row),
        key,
        encode: (value: unknown) => param.encoder.mapToDriverValue(value),
        fallback: () => column.default ?? column.defaultFn?.() ?? null,
      };
    });
    built = { sql: query.sql, params };
    byCount.set(rows.length, built);
  }
  const values = built.params.map(({ row, key, encode, fallback }) => {
    const given = (rows[row] as Record<string, unknown>)[key];
    const value = given === undefined ? fallback() : given;
    return value === null || value === undefined ? null : encode(value);
  });
  return db.$client.prepare(built.sql).bind(...values);
}

/** Update statements per table and shape (the columns set, the columns matched): SQL and how to bind it. */
const updates = new WeakMap<
  SQLiteTable,
  Map<string, { sql: string; bind: ((values: Record<string, unknown>) => unknown)[] }>
>();

/**
 * An update of the row(s) whose `match` columns equal the given values, as a D1 statement for a batch:
 * Drizzle's SQL built once per table and shape with a placeholder per value, then only bound per
 * request (Drizzle building the updates of a write's batch showed in sending an order's profile,
 * bench/tried.md, "send and refund"). As Drizzle's own update: a column left undefined in `set` is not
 * set, null sets NULL, every other value is encoded by its column (JSON, booleans). Checked against
 * Drizzle's update in test/db/client.test.ts.
 */
export function updateWhere<T extends SQLiteTable>(
  db: Database,
  table: T,
  set: Partial<T["$inferInsert"]>,
  match: Partial<T["$inferSelect"]>,
): D1PreparedStatement {
  const values: Record<string, unknown> = {};
  const columns = getTableColumns(table);
  const setKeys = Object.keys(columns).filter((key) => (set as Record<string, unknown>)[key] !== undefined);
  for (const key of setKeys) values[`set:${key}`] = (set as Record<string, unknown>)[key];
  const matchKeys = Object.keys(match);
  for (const key of matchKeys) values[`match:${key}`] = (match as Record<string, unknown>)[key];
  let byShape = updates.get(table);
  if (!byShape) {
    byShape = new Map();
    updates.set(table, byShape);
  }
  const shape = `${setKeys.join(",")}|${matchKeys.join(",")}`;
  let built = byShape.get(shape);
  if (!built) {
    if (Object.values(columns).some((column) => column.onUpdateFn)) {
      throw new Error("updateWhere: a column with an update default");
    }
    const query = db
      .update(table)
      .set(Object.fromEntries(setKeys.map((key) => [key, sql.placeholder(`set:${key}`)])) as never)
      .where(and(...matchKeys.map((key) => eq(columns[key]!, sql.placeholder(`match:${key}`)))))
      .toSQL();
    const bind = query.params.map((param): ((values: Record<string, unknown>) => unknown) => {
      if (is(param, Placeholder)) return (v) => v[param.name];
      if (!is(param, Param) || !is(param.value, Placeholder))
        throw new Error("updateWhere: a value that is not a placeholder");
      const { name } = param.value;
      return (v) => (v[name] === null ? null : param.encoder.mapToDriverValue(v[name]));
    });
    built = { sql: query.sql, bind };
    byShape.set(shape, built);
  }
  return db.$client.prepare(built.sql).bind(...built.bind.map((value) => value(values)));
}
