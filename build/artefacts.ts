/**
 * Every file the build writes into generated/ from the sources, in one place and one order:
 * 1. statements.ts: the statements of the cold reads and the write tables (./statements.ts), first,
 *    because the route modules read them when they load;
 * 2. routes.ts: the route manifest, every route the Worker answers and the module defining it
 *    (./manifest.ts);
 * 3. validators.ts: each route's request validators, compiled from its zod schemas (./request-compiler.ts);
 * 4. the OpenAPI document (./document.ts): openapi.json, indented (`npm run openapi` lints it and types
 *    the client from it), and openapi-document.ts, what `GET /openapi.json` serves: the same document as
 *    compact JSON and its ETag, so that the Worker never builds the document (about 150 ms of CPU a
 *    request, reachable without a token: bench/tried.md).
 * `npm run openapi`, the Worker's build (./worker.ts) and the tests' global setup all call
 * `writeArtefacts`, so no caller can write them in another order, or forget one.
 *
 *   npm run openapi      (this file, as a script: writes them, then openapi-typescript types the client)
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { statementsModule } from "./statements";

const root = path.join(import.meta.dirname, "..");
export const GENERATED = path.join(root, "generated");

/** Replaces `file` with `text` in one rename: a build or a server reading it never sees half a file. */
function replace(file: string, text: string) {
  if (existsSync(file) && readFileSync(file, "utf8") === text) return;
  const next = `${file}.next-${process.pid}`;
  writeFileSync(next, text);
  renameSync(next, file);
}

/** What the artefacts were written from: the document as `npm run openapi` writes it. */
export interface Artefacts {
  document: string;
}

/**
 * Writes every artefact from the sources as they are now, and answers the document. The route modules
 * are imported only once the statements they read are written.
 */
export async function writeArtefacts(): Promise<Artefacts> {
  mkdirSync(GENERATED, { recursive: true });
  replace(path.join(GENERATED, "statements.ts"), statementsModule());
  const { routesModule } = await import("./manifest");
  replace(path.join(GENERATED, "routes.ts"), await routesModule());
  // The document is built from the manifest just written.
  const [{ documentedRoutes, openApiDocument }, { validatorsModule }] = await Promise.all([
    import("./document"),
    import("./request-compiler"),
  ]);
  replace(path.join(GENERATED, "validators.ts"), await validatorsModule(await documentedRoutes()));
  const document = JSON.stringify(await openApiDocument(), null, 2);
  const served = JSON.stringify(JSON.parse(document));
  const etag = `"${createHash("sha256").update(served).digest("base64url")}"`;
  replace(path.join(GENERATED, "openapi.json"), `${document}\n`);
  replace(
    path.join(GENERATED, "openapi-document.ts"),
    [
      "// Written by build/artefacts.ts from the zod schemas (build/document.ts): do not edit.",
      "/** The OpenAPI document as `GET /openapi.json` serves it: compact JSON. */",
      `export const OPENAPI_DOCUMENT = ${JSON.stringify(served)};`,
      "/** A strong ETag of OPENAPI_DOCUMENT (its SHA-256). */",
      `export const OPENAPI_ETAG = ${JSON.stringify(etag)};`,
      "",
    ].join("\n"),
  );
  return { document };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await writeArtefacts();
