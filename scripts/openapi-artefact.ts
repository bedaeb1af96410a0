/**
 * The OpenAPI document as files, built in Node from the zod schemas (scripts/openapi.ts prints it):
 * - generated/openapi.json, indented: `npm run openapi` lints it and generates the client's types from it;
 * - generated/openapi-document.ts, what `GET /openapi.json` serves: the same document as the compact
 *   JSON a handler's `c.json` would answer, and its ETag.
 * Generating the document took about 150 ms of the Worker's CPU on every request for it, reachable
 * without a token (bench/tried.md); served from the build, a request costs what a static file does.
 * test/routes/system/openapi-json.test.ts checks, byte for byte, that the file is what the Worker would build.
 *
 * `npm run openapi` runs this; scripts/build.ts calls `writeOpenApiArtefacts` before each build of the
 * Worker, and the tests' global setup before a run, so the served document is never older than the code.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const root = path.join(import.meta.dirname, "..");
export const GENERATED = path.join(root, "generated");

/**
 * What a script typed with src prints (`script` relative to the root): a process of its own, since the
 * Node scripts are not typed with the Worker's types (scripts/openapi.ts, scripts/statements.ts,
 * scripts/validators.ts).
 */
export function printedBy(script: string): string {
  const result = spawnSync(process.execPath, ["--import", "tsx", path.join(root, script)], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`${script} failed:\n${result.stderr}`);
  return result.stdout;
}

/** Replaces `file` with `text` in one rename: a build or a server reading it never sees half a file. */
export function replace(file: string, text: string) {
  if (existsSync(file) && readFileSync(file, "utf8") === text) return;
  const next = `${file}.next-${process.pid}`;
  writeFileSync(next, text);
  renameSync(next, file);
}

/** Writes both files from the indented document (`document` given: the tests' setup builds it in-process). */
export function writeOpenApiArtefacts(document: string = printedBy("scripts/openapi.ts")) {
  mkdirSync(GENERATED, { recursive: true });
  const served = JSON.stringify(JSON.parse(document));
  const etag = `"${createHash("sha256").update(served).digest("base64url")}"`;
  replace(path.join(GENERATED, "openapi.json"), document.endsWith("\n") ? document : `${document}\n`);
  replace(
    path.join(GENERATED, "openapi-document.ts"),
    [
      "// Written by scripts/openapi-artefact.ts from the zod schemas (src/routes/system/openapi.ts): do not edit.",
      "/** The OpenAPI document as `GET /openapi.json` serves it: compact JSON. */",
      `export const OPENAPI_DOCUMENT = ${JSON.stringify(served)};`,
      "/** A strong ETag of OPENAPI_DOCUMENT (its SHA-256). */",
      `export const OPENAPI_ETAG = ${JSON.stringify(etag)};`,
      "",
    ].join("\n"),
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) writeOpenApiArtefacts();
