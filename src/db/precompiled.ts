/**
 * The statements built ahead of time (src/db/statements.ts, written to generated/statements.ts by the
 * build), run on the routing client: a cold path that only reads runs its SQL and maps its rows without
 * loading Drizzle or the schema, which was most of the gateway page's first request (bench/tried.md).
 */
import { STATEMENTS } from "../../generated/statements";
import { type RowMapper, rowMapper } from "./rows";
import type { StatementName } from "./statements";

const mappers = new Map<StatementName, RowMapper>();

/** The rows of a statement with the placeholders' `values`, each as Drizzle's own execution maps it. */
async function rowsOf(
  client: D1Database,
  name: StatementName,
  values: Record<string, unknown>,
): Promise<Record<string, unknown>[]> {
  const statement = STATEMENTS[name];
  let mapRow = mappers.get(name);
  if (!mapRow) {
    mapRow = rowMapper(statement.fields);
    mappers.set(name, mapRow);
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

/**
 * The one row (or undefined) of a statement built to answer one, with the placeholders' `values`, as
 * Drizzle's own execution of its query answers it.
 */
export async function readFirst(
  client: D1Database,
  name: StatementName,
  values: Record<string, unknown>,
): Promise<Record<string, unknown> | undefined> {
  if (!STATEMENTS[name].first) throw new Error(`${name} answers every row, not one`);
  return (await rowsOf(client, name, values))[0];
}

/** Every row of a statement built to answer all, with the placeholders' `values`, as Drizzle's `.all()` answers them. */
export async function readAll(
  client: D1Database,
  name: StatementName,
  values: Record<string, unknown>,
): Promise<Record<string, unknown>[]> {
  if (STATEMENTS[name].first) throw new Error(`${name} answers one row, not every one`);
  return rowsOf(client, name, values);
}
