/**
 * The SQL the Worker runs without Drizzle, built ahead of time from the Drizzle queries and schema it
 * stands for (the internals it reads are listed in ./index.ts):
 * - the statements of the reads on a cold path (`buildStatements`): their SQL, their placeholders' names
 *   and the plan of their rows, run by src/db/precompiled.ts and mapped by src/db/rows.ts;
 * - the tables the application's writes bind rows of (`buildWriteTables`), written by src/db/writes.ts.
 * `statementsModule` is generated/statements.ts, written by ./artefacts.ts. Each statement there is a
 * typed handle: its placeholders and its row are typed from the query it was built from.
 */
import { getTableColumns, getTableName, is, Placeholder, SQL } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Database } from "../src/db/client";
import { decodePlan, relationalInternals, relationalPlan } from "../src/db/compiler/relational";
import type { BuiltStatement, FieldPlan, StatementParam, WriteColumn, WriteTable } from "../src/db/rows";
import * as schema from "../src/db/schema";
import { STATEMENT_QUERIES, type StatementName, WRITE_TABLES_OF, type WriteTableName } from "../src/db/statements";

/** Every statement of STATEMENT_QUERIES, built with `db` (building reads the queries; it never runs one). */
export function buildStatements(db: Database): Record<StatementName, BuiltStatement> {
  const built = (name: StatementName): BuiltStatement => {
    const { query, first } = STATEMENT_QUERIES[name];
    const made = query(db);
    return "_toSQL" in made ? relationalStatement(made) : selectStatement(made, first);
  };
  return Object.fromEntries(
    (Object.keys(STATEMENT_QUERIES) as StatementName[]).map((name) => [name, built(name)]),
  ) as Record<StatementName, BuiltStatement>;
}

/** Every table of WRITE_TABLES_OF, as src/db/writes.ts binds its rows. */
export function buildWriteTables(): Record<WriteTableName, WriteTable> {
  return Object.fromEntries(
    Object.entries(WRITE_TABLES_OF).map(([name, table]) => [name, writeTable(table)]),
  ) as Record<WriteTableName, WriteTable>;
}

/** generated/statements.ts: each statement as a handle typed by its query, and the write tables. */
export function statementsModule(): string {
  const db = drizzle({} as D1Database, { schema });
  const handles = Object.entries(buildStatements(db)).map(([name, built]) => {
    const placeholders = [...new Set(built.params.flatMap((p) => ("placeholder" in p ? [p.placeholder] : [])))];
    const values = placeholders.length > 0 ? placeholders.map((p) => JSON.stringify(p)).join(" | ") : "never";
    const text = JSON.stringify(built, null, 2).replaceAll("\n", "\n  ");
    return `  ${name}: ${text} as Statement<${values}, Row<Queries[${JSON.stringify(name)}]["query"]>>,`;
  });
  return [
    "// Written by build/artefacts.ts from the Drizzle queries of src/db/statements.ts: do not edit.",
    'import type { Row, Statement, WriteTable } from "../src/db/rows";',
    'import type { STATEMENT_QUERIES, WriteTableName } from "../src/db/statements";',
    "",
    "type Queries = typeof STATEMENT_QUERIES;",
    "",
    "/** Each statement's SQL, parameters and row plan, by name, typed by the query it was built from. */",
    "export const STATEMENTS = {",
    ...handles,
    "};",
    "",
    "/** The tables the application's writes bind rows of, by name. */",
    `export const WRITE_TABLES: Record<WriteTableName, WriteTable> = ${JSON.stringify(buildWriteTables(), null, 2)};`,
    "",
  ].join("\n");
}

/**
 * A statement's parameters: a placeholder by its name, given when the statement runs, or a number the
 * query holds itself (findFirst's `limit 1`). Any other value would be fixed into the statement for good,
 * as whatever it was when it was built: refused.
 */
function statementParams(params: unknown[]): StatementParam[] {
  return params.map((param, index) => {
    if (is(param, Placeholder)) return { placeholder: param.name };
    if (typeof param === "number") return { value: param };
    throw new Error(`parameter ${index + 1} is neither a placeholder (sql.placeholder) nor a number`);
  });
}

/** A relational query (`db.query.<table>.findFirst/findMany`) as a statement. */
export function relationalStatement(query: unknown): BuiltStatement {
  const internals = relationalInternals(query);
  const { query: built, builtQuery } = internals._toSQL();
  return {
    sql: builtQuery.sql,
    params: statementParams(builtQuery.params),
    first: internals.mode === "first",
    fields: relationalPlan(internals.schema, internals.tableConfig, built.selection),
  };
}

/** A select of named columns (`db.select({...})…`), run as `.get()` (`first`) or `.all()`, as a statement. */
export function selectStatement(
  query: { toSQL(): { sql: string; params: unknown[] } },
  first: boolean,
): BuiltStatement {
  const { sql, params } = query.toSQL();
  // The selection as given (`getSelectedFields()` answers it behind a subquery's proxy).
  const selected = (query as unknown as { config: { fields: Record<string, unknown> } }).config.fields;
  // Drizzle selects a flat selection's fields in their order (`orderSelectedFields`).
  const fields = Object.entries(selected).map(
    ([key, field]): FieldPlan => ({
      key,
      ...decodePlan(field, key),
    }),
  );
  return { sql, params: statementParams(params), first, fields };
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
