/**
 * vitest's global setup of the workers project: builds the OpenAPI document once per run, in Node, and
 * gives it to every test file (`inject("openApiDocument")`), whose response check
 * (test/support/openapi-check.ts) would otherwise build every route group in its own runtime. It is
 * serialised as `npm run openapi` writes generated/openapi.json; test/http/openapi.test.ts checks, byte
 * for byte, that it is what the Worker builds in workerd. Built rather than read from generated/, so a
 * single `npx vitest run <file>` needs no earlier step and never checks against a stale file.
 */
import type { TestProject } from "vitest/node";
import { openApiDocument } from "../../src/routes/system/openapi";

export default function setup(project: TestProject) {
  project.provide("openApiDocument", JSON.stringify(openApiDocument(), null, 2));
}
