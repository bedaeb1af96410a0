/**
 * generated/validators.ts: the request validators compiled ahead of time (src/http/request-compiler.ts),
 * as scripts/validators.ts prints them. A route they cover is served without zod (`openApiRoute`);
 * test/http/request-compiler.test.ts checks that the file is what the code would compile.
 *
 * `npm run openapi` runs this; scripts/build.ts calls `writeValidatorArtefact` before each build of the
 * Worker, and the tests' global setup before a run, so the validators are never older than the schemas.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { GENERATED, printedBy, replace } from "./openapi-artefact";

/** Writes the file, as scripts/validators.ts prints it (`text` given: the tests' setup builds it in-process). */
export function writeValidatorArtefact(text: string = printedBy("scripts/validators.ts")) {
  mkdirSync(GENERATED, { recursive: true });
  replace(path.join(GENERATED, "validators.ts"), text);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) writeValidatorArtefact();
