/**
 * generated/statements.ts: the statements built ahead of time (src/db/statements.ts), as scripts/statements.ts
 * prints them. The Worker runs them without Drizzle (src/db/precompiled.ts), so that a cold path which only
 * reads them (the gateway page) does not load Drizzle and the schema. test/db/statements.test.ts checks
 * that the file is what the Worker would build in workerd.
 *
 * `npm run openapi` runs this first (the document is built from the route modules, which read the
 * statements); scripts/build.ts calls `writeStatementArtefact` before each build of the Worker, and the
 * tests' global setup before a run, so the statements are never older than the code.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { GENERATED, printedBy, replace } from "./openapi-artefact";

/** Writes the file, as scripts/statements.ts prints it (`text` given: the tests' setup builds it in-process). */
export function writeStatementArtefact(text: string = printedBy("scripts/statements.ts")) {
  mkdirSync(GENERATED, { recursive: true });
  replace(path.join(GENERATED, "statements.ts"), text);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) writeStatementArtefact();
