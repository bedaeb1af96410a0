/**
 * Statements built from Drizzle queries into plain data (see ./index.ts for the internals relied on):
 * the SQL, its placeholders' names and the plan of its rows, which src/db/precompiled.ts runs without
 * Drizzle. scripts/statements-artefact.ts builds them when the Worker is built.
 */
import { is, Placeholder } from "drizzle-orm";
import type { BuiltStatement, FieldPlan, StatementParam } from "../rows";
import { decodePlan, relationalInternals, relationalPlan } from "./relational";

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
