/** The relational row plan, made per query (see ./index.ts for the Drizzle internals it relies on). */
import { Column, is, noopDecoder, One, SQL } from "drizzle-orm";
import { SQLiteBoolean, SQLiteTextJson } from "drizzle-orm/sqlite-core";
import { type FieldPlan, rowMapper } from "../rows";

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
  _toSQL(): { query: { selection: SelectionItem[] }; builtQuery: { sql: string; params: unknown[] } };
  prepare(): { values(placeholders?: Record<string, unknown>): Promise<unknown[][]> };
}

/** `query` as this module relies on a Drizzle relational query being; anything else is refused. */
export function relationalInternals(query: unknown): RelationalInternals {
  const internals = query as RelationalInternals;
  if (typeof internals._toSQL !== "function" || !internals.tableConfig || !internals.schema) {
    throw new Error("not a Drizzle relational query");
  }
  return internals;
}

/**
 * How a selected field is decoded, as its Drizzle decoder does: a column's `mapFromDriverValue`, an SQL's
 * `decoder`, an aliased field's `sql.decoder`. Only the decoders the schema uses have a plan; another
 * (a timestamp column, a custom type) fails here, when the query is first built, not on a row.
 */
export function decodePlan(field: unknown, key: string): Pick<Extract<FieldPlan, { decode?: unknown }>, "decode"> {
  if (is(field, SQLiteTextJson)) return { decode: "json" };
  if (is(field, SQLiteBoolean)) return { decode: "boolean" };
  if (is(field, Column) && field.mapFromDriverValue === Column.prototype.mapFromDriverValue) return {};
  const sql = is(field, SQL) ? field : (field as { sql?: unknown }).sql;
  if (is(sql, SQL) && (sql as unknown as { decoder: unknown }).decoder === noopDecoder) return {};
  throw new Error(`no row plan for how ${key} is decoded`);
}

/** Drizzle's `mapRelationalRow` over one selection, as a plan: relation or column, one or many, which decoder. */
export function relationalPlan(
  tables: RelationalInternals["schema"],
  table: { relations: Record<string, unknown> },
  selection: SelectionItem[],
): FieldPlan[] {
  return selection.map((item): FieldPlan => {
    const key = item.tsKey;
    if (!item.isJson) return { key, ...decodePlan(item.field, key) };
    return {
      key,
      relation: is(table.relations[key], One) ? "one" : "many",
      fields: relationalPlan(tables, tables[item.relationTableTsKey!]!, item.selection),
    };
  });
}

/**
 * A relational query prepared once, answering what Drizzle's own execution answers (the row or
 * undefined for findFirst, the rows for findMany) with a compiled row mapper (src/db/rows.ts): Drizzle's
 * generic mapping was the largest share of a list page's CPU after the D1 call. The statement is
 * Drizzle's prepared statement, run the same way (its raw rows, through the routing client).
 */
export function preparedRelational<Result>(
  query: PromiseLike<Result>,
): (placeholders?: Record<string, unknown>) => Promise<Result> {
  const internals = relationalInternals(query);
  const mapRow = rowMapper(relationalPlan(internals.schema, internals.tableConfig, internals._toSQL().query.selection));
  const statement = internals.prepare();
  const first = internals.mode === "first";
  return async (placeholders?: Record<string, unknown>) => {
    const rows = await statement.values(placeholders);
    return (first ? (rows[0] === undefined ? undefined : mapRow(rows[0])) : rows.map(mapRow)) as Result;
  };
}
