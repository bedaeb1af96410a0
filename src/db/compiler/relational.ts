/** The relational row mapper, compiled per query (see ./index.ts for the Drizzle internals it relies on). */
import { Column, is, One, SQL } from "drizzle-orm";

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
