/**
 * vitest's global setup of the workers project: builds the OpenAPI document once per run, in Node, and
 * gives it to every test file (`inject("openApiDocument")`), whose response check
 * (test/support/openapi-check.ts) would otherwise build every route group in its own runtime. It is
 * serialised as `npm run openapi` writes generated/openapi.json; test/http/openapi.test.ts checks, byte
 * for byte, that it is what the Worker builds in workerd.
 *
 * It also writes the build's files from it (scripts/openapi-artefact.ts), and the statements built ahead
 * of time (scripts/statements-artefact.ts), before any runtime starts: the Worker serves
 * generated/openapi-document.ts and runs generated/statements.ts, so a single `npx vitest run <file>`
 * needs no earlier step and never runs against a document or statements older than the code.
 */
import type { TestProject } from "vitest/node";
import { writeOpenApiArtefacts } from "../../scripts/openapi-artefact";
import { statementsModule } from "../../scripts/statements";
import { writeStatementArtefact } from "../../scripts/statements-artefact";
import { openApiDocument } from "../../src/routes/system/openapi";

export default function setup(project: TestProject) {
  const document = JSON.stringify(openApiDocument(), null, 2);
  writeOpenApiArtefacts(document);
  writeStatementArtefact(statementsModule());
  project.provide("openApiDocument", document);
}
