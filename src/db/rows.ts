/**
 * Rows as Drizzle answers them, from a plan made once per statement: which key each selected value
 * becomes and how it is decoded. src/db/compiler/ makes the plan from Drizzle's query at the first
 * request, build/statements.ts ahead of time for src/db/precompiled.ts; this module maps rows by it
 * without Drizzle.
 */

/** How one selected value of a row becomes a field of the row Drizzle would answer. */
export type FieldPlan =
  /** A column, decoded as its Drizzle column decodes it: `json` text parsed, a `boolean` integer as 1 = true. */
  | { key: string; decode?: "json" | "boolean" }
  /** A relation, selected as a JSON subquery: one row (or null) or a list of rows, each by its own plan. */
  | { key: string; relation: "one" | "many"; fields: FieldPlan[] };

/** A parameter of a built statement: a placeholder's value, given when it runs, or a number of the query's own. */
export type StatementParam = { placeholder: string } | { value: number };

/** A statement built from a Drizzle query: its SQL, its parameters in order, its rows' plan. */
export interface BuiltStatement {
  sql: string;
  params: StatementParam[];
  /** One row or none (findFirst, `.get()`), else every row. */
  first: boolean;
  fields: FieldPlan[];
}

/**
 * A statement as a handle (generated/statements.ts): built, with the names of its placeholders and the
 * row its query answers as types, so that running it is typed by the query it was built from.
 */
export type Statement<Params extends string, R> = BuiltStatement & { readonly __params?: Params; readonly __row?: R };

/** The row a query (`(db) => query`) answers: a relational findFirst's one, a select's element. */
export type Row<Q extends (...args: never[]) => PromiseLike<unknown>> =
  Awaited<ReturnType<Q>> extends readonly (infer R)[] ? R : NonNullable<Awaited<ReturnType<Q>>>;

/** A column as a write binds it: its key in the row, its name in SQL, its encoding and its default. */
export interface WriteColumn {
  key: string;
  name: string;
  /** As Drizzle encodes the value: text as JSON, a boolean as 1 or 0; otherwise as it is. */
  encoding?: "json" | "boolean";
  /** The value of a column left out, as Drizzle's insert fills it in. */
  default?: string | number | boolean | null;
}

/** A table as the writes bind it (build/statements.ts reads it from the schema). */
export interface WriteTable {
  name: string;
  columns: WriteColumn[];
}

export type RowMapper = (row: unknown[]) => Record<string, unknown>;

const DECODERS = {
  json: (value: unknown) => JSON.parse(value as string),
  boolean: (value: unknown) => Number(value) === 1,
};

/**
 * Drizzle's `mapRelationalRow` (and `mapResultRow` for flat selections) over one plan, compiled: what it
 * decides for every value of every row is decided here once. Same keys in the same order, same decoding
 * (test/db/compiler/relational.test.ts and test/db/application-reads.test.ts compare the two on stored rows).
 */
export function rowMapper(fields: readonly FieldPlan[]): RowMapper {
  const setters = fields.map((field, index): ((row: unknown[], into: Record<string, unknown>) => void) => {
    const { key } = field;
    if ("relation" in field) {
      const nested = rowMapper(field.fields);
      const one = field.relation === "one";
      return (row, into) => {
        const raw = row[index];
        const rows = (typeof raw === "string" ? JSON.parse(raw) : raw) as unknown[][] | unknown[] | null;
        into[key] = one ? rows && nested(rows as unknown[]) : (rows as unknown[][]).map(nested);
      };
    }
    const decode = field.decode && DECODERS[field.decode];
    if (!decode) {
      return (row, into) => {
        into[key] = row[index];
      };
    }
    return (row, into) => {
      const value = row[index];
      into[key] = value === null ? null : decode(value);
    };
  });
  return (row) => {
    const into: Record<string, unknown> = {};
    for (const set of setters) set(row, into);
    return into;
  };
}
