/**
 * Prints generated/statements.ts: the statements built ahead of time (src/db/statements.ts), built in
 * Node from the Drizzle queries they stand for, and the tables the writes bind rows of
 * (scripts/statements-artefact.ts writes it). Typed with src/ (the root tsconfig), as scripts/openapi.ts is.
 */
import { pathToFileURL } from "node:url";
import { drizzle } from "drizzle-orm/d1";
import * as schema from "../src/db/schema";
import { buildStatements, buildWriteTables } from "../src/db/statements";

/** The module's text. Building the statements reads the queries; it never runs one, so no database is needed. */
export function statementsModule(): string {
  const db = drizzle({} as D1Database, { schema });
  return [
    "// Written by scripts/statements-artefact.ts from the Drizzle queries (src/db/statements.ts): do not edit.",
    'import type { BuiltStatement } from "../src/db/rows";',
    'import type { WriteTable } from "../src/db/compiler/writes";',
    'import type { StatementName, WriteTableName } from "../src/db/statements";',
    "",
    "/** Each statement's SQL, parameters and row plan, by name. */",
    `export const STATEMENTS: Record<StatementName, BuiltStatement> = ${JSON.stringify(buildStatements(db), null, 2)};`,
    "",
    "/** The tables the application's writes bind rows of, by name. */",
    `export const WRITE_TABLES: Record<WriteTableName, WriteTable> = ${JSON.stringify(buildWriteTables(), null, 2)};`,
    "",
  ].join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.stdout.write(statementsModule());
