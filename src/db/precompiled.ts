/**
 * The statements built ahead of time (build/statements.ts writes generated/statements.ts), run on the
 * routing client: a cold path that only reads runs its SQL and maps its rows without loading Drizzle or
 * the schema, which was most of the gateway page's first request (bench/tried.md). Each statement is a
 * handle typed by the query it was built from: its placeholders' values and its rows.
 */
import { type BuiltStatement, type RowMapper, rowMapper, type Statement } from "./rows";

const mappers = new WeakMap<BuiltStatement, RowMapper>();

type ParamsOf<S> = S extends Statement<infer P, unknown> ? P : never;
type RowOf<S> = S extends Statement<string, infer R> ? R : never;

/** The rows of a statement with the placeholders' `values`, each as Drizzle's own execution maps it. */
async function rowsOf(
  client: D1Database,
  statement: BuiltStatement,
  values: Record<string, unknown>,
): Promise<Record<string, unknown>[]> {
  let mapRow = mappers.get(statement);
  if (!mapRow) {
    mapRow = rowMapper(statement.fields);
    mappers.set(statement, mapRow);
  }
  const params = statement.params.map((param) => ("placeholder" in param ? values[param.placeholder] : param.value));
  let rows: unknown[][];
  try {
    rows = await client
      .prepare(statement.sql)
      .bind(...params)
      .raw();
  } catch (error) {
    // As Drizzle wraps a failed query, so that the log says which statement failed (never with which
    // values) and the database's own error follows as the cause (src/log.ts).
    throw new Error(`Failed query: ${statement.sql}`, { cause: error });
  }
  return rows.map(mapRow);
}

/** The one row (or undefined) of a statement built to answer one, as Drizzle's own execution of its query answers it. */
export async function readFirst<S extends Statement<string, unknown>>(
  client: D1Database,
  statement: S,
  values: Record<ParamsOf<S>, unknown>,
): Promise<RowOf<S> | undefined> {
  if (!statement.first) throw new Error(`${statement.sql} answers every row, not one`);
  return (await rowsOf(client, statement, values))[0] as RowOf<S> | undefined;
}

/** Every row of a statement built to answer all, as Drizzle's `.all()` answers them. */
export async function readAll<S extends Statement<string, unknown>>(
  client: D1Database,
  statement: S,
  values: Record<ParamsOf<S>, unknown>,
): Promise<RowOf<S>[]> {
  if (statement.first) throw new Error(`${statement.sql} answers one row, not every one`);
  return (await rowsOf(client, statement, values)) as RowOf<S>[];
}
