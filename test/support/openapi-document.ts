/**
 * vitest's global setup of the workers project: writes the build's artefacts from the code as it is
 * (build/artefacts.ts: the statements and request validators built ahead of time, the OpenAPI document)
 * before any runtime starts, and gives the document to every test file (`inject("openApiDocument")`),
 * whose response check (test/support/openapi-check.ts) would otherwise build every route in its
 * own runtime. So a single `npx vitest run <file>` needs no earlier step and never runs against
 * artefacts older than the code; test/build/artefacts.test.ts shows the build would not either.
 */
import type { TestProject } from "vitest/node";
import { writeArtefacts } from "../../build/artefacts";

export default async function setup(project: TestProject) {
  const { document } = await writeArtefacts();
  project.provide("openApiDocument", document);
}
