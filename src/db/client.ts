import {
  and,
  Column,
  eq,
  getTableColumns,
  getTableName,
  is,
  Name,
  One,
  Param,
  Placeholder,
  SQL,
  StringChunk,
  sql,
  Table,
} from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Env } from "../config";
import { retryingRead } from "../transient";
import * as schema from "./schema";
import { requestSession } from "./session";

export { type D1Client, withD1Session } from "./session";

export type Database = ReturnType<typeof open>;
const open = (client: D1Database) => drizzle(client, { schema });

/**
 * A client for Drizzle that resolves the target per statement: `prepare` answers a statement that
 * picks the current session when it is bound (Drizzle binds every statement before it runs it, even
 * without parameters when it runs alone), and `batch` resolves the ones Drizzle passes unbound.
 */
function routingClient(binding: D1Database): D1Database {
  const target = () => requestSession.getStore()?.client ?? binding;
  const reads = () => requestSession.getStore()?.reads === true;
  class Routed {
    constructor(readonly query: string) {}
    bind(...values: unknown[]) {
      const statement = target()
        .prepare(this.query)
        .bind(...values);
      return reads() ? retrying(statement) : statement;
    }
  }
  const resolve = (s: D1PreparedStatement) =>
    s instanceof Routed ? target().prepare(s.query) : ((s as Retrying)[UNWRAPPED] ?? s);
  return {
    prepare: (query: string) => new Routed(query) as unknown as D1PreparedStatement,
    batch: (statements: D1PreparedStatement[]) => {
      const run = () => target().batch(statements.map(resolve));
      return reads() ? retryingRead(run) : run();
    },
    exec: (query: string) => binding.exec(query),
  } as unknown as D1Database;
}

const UNWRAPPED = Symbol("statement");
type Retrying = D1PreparedStatement & { [UNWRAPPED]?: D1PreparedStatement };

/** A bound statement of an idempotent read whose executions are retried after transient failures. */
function retrying(statement: D1PreparedStatement): D1PreparedStatement {
  return new Proxy(statement, {
    get(target, prop) {
      if (prop === UNWRAPPED) return target;
      const value = Reflect.get(target, prop, target);
      if (prop === "all" || prop === "raw" || prop === "first" || prop === "run") {
        return (...args: unknown[]) => retryingRead(() => value.apply(target, args));
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * One Drizzle instance per D1 binding for the life of the isolate: creating it walks the whole schema,
 * and prepared queries (see `prepared`) live on it. The binding is the key, so a test's or a counting
 * wrapper's own binding gets its own instance.
 */
const instances = new WeakMap<D1Database, Database>();

export function database(env: Env): Database {
  let db = instances.get(env.DB);
  if (!db) {
    db = open(routingClient(env.DB));
    instances.set(env.DB, db);
  }
  return db;
}

/**
 * A query built once per database and reused with new placeholder values: building SQL through
 * Drizzle's builders costs more CPU than the D1 call itself on a hot path like reading an application.
 */
export function prepared<T>(build: (db: Database) => T): (db: Database) => T {
  const cache = new WeakMap<Database, T>();
  return (db) => {
    let query = cache.get(db);
    if (query === undefined) {
      query = build(db);
      cache.set(db, query);
    }
    return query;
  };
}

/** One item of a relational query's selection, as Drizzle builds it (`buildRelationalQuery`). */
interface SelectionItem {
  tsKey: string;
  isJson: boolean;
  field: unknown;
  relationTableTsKey?: string;
  selection: SelectionItem[];
}

/** What a relational query (`db.query.<table>.findFirst/findMany`) holds besides its public API. */
interface RelationalInternals {
  mode: "first" | "many";
  schema: Record<string, { relations: Record<string, unknown> }>;
  tableConfig: { relations: Record<string, unknown> };
  _toSQL(): { query: { selection: SelectionItem[] } };
  prepare(): { values(placeholders?: Record<string, unknown>): Promise<unknown[][]> };
}

type RowMapper = (row: unknown[]) => Record<string, unknown>;

/**
 * Drizzle's `mapRelationalRow` over one selection, compiled: what it decides for every value of every
 * row (relation or column, one or many, which decoder) is decided here once. Same rules, same keys in
 * the same order, same decoders (test/db/client.test.ts compares the two on stored rows).
 */
function compileRow(
  tables: RelationalInternals["schema"],
  table: { relations: Record<string, unknown> },
  selection: SelectionItem[],
): RowMapper {
  const fields = selection.map((item, index): ((row: unknown[], into: Record<string, unknown>) => void) => {
    const key = item.tsKey;
    if (item.isJson) {
      const nested = compileRow(tables, tables[item.relationTableTsKey!]!, item.selection);
      const one = is(table.relations[key], One);
      return (row, into) => {
        const raw = row[index];
        const rows = (typeof raw === "string" ? JSON.parse(raw) : raw) as unknown[][] | unknown[] | null;
        into[key] = one ? rows && nested(rows as unknown[]) : (rows as unknown[][]).map(nested);
      };
    }
    type Decoder = { mapFromDriverValue(value: unknown): unknown };
    const field = item.field as Decoder & { decoder: Decoder; sql: { decoder: Decoder } };
    const decoder = is(field, Column) ? field : is(field, SQL) ? field.decoder : field.sql.decoder;
    const decode = decoder.mapFromDriverValue.bind(decoder);
    return (row, into) => {
      const value = row[index];
      into[key] = value === null ? null : decode(value);
    };
  });
  return (row) => {
    const into: Record<string, unknown> = {};
    for (const field of fields) field(row, into);
    return into;
  };
}

/**
 * A relational query prepared once, answering what Drizzle's own execution answers (the row or
 * undefined for findFirst, the rows for findMany) with a compiled row mapper (`compileRow`): Drizzle's
 * generic mapping was the largest share of a list page's CPU after the D1 call. The statement is
 * Drizzle's prepared statement, run the same way (its raw rows, through the routing client).
 */
export function preparedRelational<Result>(
  query: PromiseLike<Result>,
): (placeholders?: Record<string, unknown>) => Promise<Result> {
  const internals = query as unknown as RelationalInternals;
  if (typeof internals._toSQL !== "function" || !internals.tableConfig || !internals.schema) {
    throw new Error("preparedRelational: not a Drizzle relational query");
  }
  const mapRow = compileRow(internals.schema, internals.tableConfig, internals._toSQL().query.selection);
  const statement = internals.prepare();
  const first = internals.mode === "first";
  return async (placeholders?: Record<string, unknown>) => {
    const rows = await statement.values(placeholders);
    return (first ? (rows[0] === undefined ? undefined : mapRow(rows[0])) : rows.map(mapRow)) as Result;
  };
}

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
 * request (Drizzle building the updates of a write's batch was 8 % of sending an order). As Drizzle's
 * own update: a column left undefined in `set` is not set, null sets NULL, every other value is encoded
 * by its column (JSON, booleans). Checked against Drizzle's update in test/db/client.test.ts.
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

/** A condition with its bound values taken out (see `parameterize`). */
export interface Parameterized {
  /** The values, by placeholder name, encoded as Drizzle binds them. */
  values: Record<string, unknown>;
  /** The condition's SQL apart from its values: two conditions of one shape render the same SQL. */
  shape: string;
  /** The condition with a placeholder where each value was; built only when asked (`withTemplate`). */
  template?: SQL;
}

/**
 * Takes a condition built with Drizzle's operators apart into its shape and its values, walking its
 * chunks as Drizzle's renderer does but writing nothing: a query built once from the template (with
 * `.prepare()`) then serves every later condition of the same shape, bound with that condition's values.
 * That skips rendering the query on each request, which costs more CPU than the D1 call on a list page.
 * A chunk it does not know is an error, never a silently wrong shape.
 */
export function parameterize(condition: SQL, withTemplate = false): Parameterized {
  const values: Record<string, unknown> = {};
  const shape: string[] = [];
  const hole = (value: unknown) => {
    const name = `p${Object.keys(values).length}`;
    values[name] = value;
    shape.push("?");
    return withTemplate ? sql.placeholder(name) : undefined;
  };
  const walk = (chunk: unknown): unknown => {
    if (is(chunk, SQL)) {
      if ((chunk as unknown as { shouldInlineParams: boolean }).shouldInlineParams)
        throw new Error("parameterize: inlined values have no placeholder");
      const chunks = chunk.queryChunks.map(walk);
      return withTemplate ? new SQL(chunks as SQL["queryChunks"]) : undefined;
    }
    if (is(chunk, StringChunk)) shape.push(chunk.value.join(""));
    else if (is(chunk, Column)) shape.push(`${getTableName(chunk.table)}.${chunk.name}`);
    else if (is(chunk, Table)) shape.push(getTableName(chunk));
    else if (is(chunk, Name)) shape.push(`"${chunk.value}"`);
    else if (is(chunk, Placeholder)) shape.push(`:${chunk.name}`);
    else if (is(chunk, Param)) {
      if (is(chunk.value, Placeholder)) shape.push(`:${chunk.value.name}`);
      else {
        const value = chunk.value === null ? null : chunk.encoder.mapToDriverValue(chunk.value);
        return is(value, SQL) ? walk(value) : hole(value);
      }
    } else if (Array.isArray(chunk)) {
      // Rendered as a parenthesised list, one parameter per member.
      shape.push("(");
      const members = chunk.map(walk);
      shape.push(")");
      return withTemplate ? members : undefined;
    } else if (chunk === null || ["string", "number", "boolean", "bigint"].includes(typeof chunk)) return hole(chunk);
    else if (chunk !== undefined) throw new Error(`parameterize: an SQL chunk it cannot take apart: ${String(chunk)}`);
    return chunk;
  };
  const template = walk(condition) as SQL | undefined;
  return { values, shape: shape.join("\u0000"), ...(withTemplate ? { template } : {}) };
}
