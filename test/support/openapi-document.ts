/**
 * vitest's global setup of the workers project: builds the OpenAPI document once per run, in Node, and
 * gives it to every test file (`inject("openApiDocument")`), whose response check
 * (test/support/openapi-check.ts) would otherwise build every route group in its own runtime. It is
 * serialised as `npm run openapi` writes generated/openapi.json; test/http/openapi.test.ts checks, byte
 * for byte, that it is what the Worker builds in workerd.
 *
 * It also writes the build's files from it (scripts/openapi-artefact.ts), and the statements and request
 * validators built ahead of time (scripts/statements-artefact.ts, scripts/validators-artefact.ts), before
 * any runtime starts: the Worker serves generated/openapi-document.ts and runs generated/statements.ts
 * and generated/validators.ts, so a single `npx vitest run <file>` needs no earlier step and never runs
 * against a document, statements or validators older than the code.
 */
import type { TestProject } from "vitest/node";
import { writeOpenApiArtefacts } from "../../scripts/openapi-artefact";
import { statementsModule } from "../../scripts/statements";
import { writeStatementArtefact } from "../../scripts/statements-artefact";
import { writeValidatorArtefact } from "../../scripts/validators-artefact";

export default async function setup(project: TestProject) {
  // The statements first: the route modules that build the document read them (src/db/precompiled.ts).
  writeStatementArtefact(statementsModule());
  const { documentedRoutes, openApiDocument } = await import("../../src/routes/system/openapi");
  const { validatorsModule } = await import("../../src/http/request-compiler");
  writeValidatorArtefact(await validatorsModule(await documentedRoutes()));
  const document = JSON.stringify(await openApiDocument(), null, 2);
  writeOpenApiArtefacts(document);
  project.provide("openApiDocument", document);
}
