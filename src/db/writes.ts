/**
 * Inserts, updates and deletes of the application's rows, as D1 statements for a batch, without Drizzle:
 * the SQL Drizzle writes for them (test/db/writes.test.ts holds the two equal, text and values), from
 * the tables as the build read them from the schema (WRITE_TABLES). A write's first request then loads
 * no Drizzle, and no write builds its SQL twice: each shape's text is kept.
 */
import { WRITE_TABLES } from "../../generated/statements";
import type { WriteColumn } from "./rows";
import type { applications, documents, events, orderLines, refunds, shipments } from "./schema";
import type { WriteTableName } from "./statements";

/** The row each table takes, as Drizzle types an insert of it. */
export interface WriteRows {
  applications: typeof applications.$inferInsert;
  orderLines: typeof orderLines.$inferInsert;
  events: typeof events.$inferInsert;
  refunds: typeof refunds.$inferInsert;
  documents: typeof documents.$inferInsert;
  shipments: typeof shipments.$inferInsert;
}

type Row = Record<string, unknown>;

const quoted = (name: string) => `"${name}"`;

/** A value as its column stores it: null stays NULL, JSON and booleans as Drizzle encodes them. */
function encoded(column: WriteColumn, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (column.encoding === "json") return JSON.stringify(value);
  if (column.encoding === "boolean") return value ? 1 : 0;
  return value;
}

const byKey = new Map<WriteTableName, Map<string, WriteColumn>>();

function column(table: WriteTableName, key: string): WriteColumn {
  let columns = byKey.get(table);
  if (!columns) {
    columns = new Map(WRITE_TABLES[table].columns.map((c) => [c.key, c]));
    byKey.set(table, columns);
  }
  const found = columns.get(key);
  if (!found) throw new Error(`${table} has no column ${key}`);
  return found;
}

/**
 * `"table"."column" = ?` for each key, joined as Drizzle's `and` joins them. Only plain columns: a value
 * is bound as it is, as Drizzle binds `eq(column, placeholder)`, which would not match a JSON or boolean
 * column's stored form.
 */
function matching(table: WriteTableName, keys: readonly string[]): string {
  if (keys.length === 0) throw new Error(`${table}: a write matching no column`);
  const name = quoted(WRITE_TABLES[table].name);
  const conditions = keys.map((key) => {
    const matched = column(table, key);
    if (matched.encoding) throw new Error(`${table}: matching on ${key}, a ${matched.encoding} column`);
    return `${name}.${quoted(matched.name)} = ?`;
  });
  return conditions.length === 1 ? conditions[0]! : `(${conditions.join(" and ")})`;
}

/** The values a write matches on, in its keys' order; an undefined one is no value D1 can bind. */
function matchValues(table: WriteTableName, match: object): { keys: string[]; values: unknown[] } {
  const keys = Object.keys(match);
  const values = keys.map((key) => (match as Row)[key]);
  if (values.includes(undefined)) throw new Error(`${table}: matching on an undefined value`);
  return { keys, values };
}

/** Each shape's SQL text, built once. */
const texts = new Map<string, string>();

function text(shape: string, build: () => string): string {
  let sql = texts.get(shape);
  if (sql === undefined) {
    sql = build();
    texts.set(shape, sql);
  }
  return sql;
}

/** An insert of whole rows, every column bound: a value left out takes the column's default, as with Drizzle. */
export function insertRows<T extends WriteTableName>(
  client: D1Database,
  table: T,
  rows: readonly WriteRows[T][],
): D1PreparedStatement {
  const { name, columns } = WRITE_TABLES[table];
  const sql = text(`insert|${table}|${rows.length}`, () => {
    const tuple = `(${columns.map(() => "?").join(", ")})`;
    const values = rows.map(() => tuple).join(", ");
    return `insert into ${quoted(name)} (${columns.map((c) => quoted(c.name)).join(", ")}) values ${values}`;
  });
  const values = rows.flatMap((row) =>
    columns.map((c) => {
      const given = (row as Row)[c.key];
      return encoded(c, given === undefined ? c.default : given);
    }),
  );
  return client.prepare(sql).bind(...values);
}

/**
 * An update of the row(s) whose `match` columns equal the given values. As Drizzle's own update: a
 * column left undefined in `set` is not set, null sets NULL, every other value is encoded by its column.
 */
export function updateWhere<T extends WriteTableName>(
  client: D1Database,
  table: T,
  set: Partial<WriteRows[T]>,
  match: Partial<WriteRows[T]>,
): D1PreparedStatement {
  const { name, columns } = WRITE_TABLES[table];
  const setColumns = columns.filter((c) => (set as Row)[c.key] !== undefined);
  // As Drizzle's update refuses it ("No values to set").
  if (setColumns.length === 0) throw new Error(`${table}: an update that sets nothing`);
  const matched = matchValues(table, match);
  const sql = text(`update|${table}|${setColumns.map((c) => c.key).join(",")}|${matched.keys.join(",")}`, () => {
    const assignments = setColumns.map((c) => `${quoted(c.name)} = ?`).join(", ");
    return `update ${quoted(name)} set ${assignments} where ${matching(table, matched.keys)}`;
  });
  // The matched values as they are, as Drizzle binds `eq(column, placeholder)`.
  return client.prepare(sql).bind(...setColumns.map((c) => encoded(c, (set as Row)[c.key])), ...matched.values);
}

/** A delete of the rows whose `match` columns equal the given values. */
export function deleteWhere<T extends WriteTableName>(
  client: D1Database,
  table: T,
  match: Partial<WriteRows[T]>,
): D1PreparedStatement {
  const matched = matchValues(table, match);
  const sql = text(
    `delete|${table}|${matched.keys.join(",")}`,
    () => `delete from ${quoted(WRITE_TABLES[table].name)} where ${matching(table, matched.keys)}`,
  );
  return client.prepare(sql).bind(...matched.values);
}

/** How many columns a table binds per row: D1 binds at most 100 parameters to a statement. */
export const columnCount = (table: WriteTableName) => WRITE_TABLES[table].columns.length;
