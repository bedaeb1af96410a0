import type { Context } from "hono";
import type { HonoEnv } from "../../env";

const CACHE_CONTROL = "public, max-age=300";

/** Where the document's servers begin, in its compact JSON: the build writes it once, at the top. */
const SERVERS = '"servers":[';

/**
 * The document as it is served to a reader at `origin`: that origin first among its servers, so that
 * a request tried from the reference (/docs) goes to the service serving it, and the build's ETag with
 * the origin's, so that the tag changes with the bytes.
 */
async function servedAt(origin: string): Promise<{ body: string; etag: string }> {
  // Loaded with the first request, not with this module: the build imports every route module before it
  // writes the document (build/artefacts.ts), so a fresh checkout has none yet.
  const { OPENAPI_DOCUMENT, OPENAPI_ETAG } = await import("../../../generated/openapi-document");
  const at = OPENAPI_DOCUMENT.indexOf(SERVERS) + SERVERS.length;
  const server = JSON.stringify({ url: origin, description: "This service" });
  return {
    body: `${OPENAPI_DOCUMENT.slice(0, at)}${server},${OPENAPI_DOCUMENT.slice(at)}`,
    etag: `${OPENAPI_ETAG.slice(0, -1)}.${encodeURIComponent(origin)}"`,
  };
}

/** The documents served, by origin: a handful (the public one, local ports); past 8 the oldest goes. */
const served = new Map<string, { body: string; etag: string }>();

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === "*") return true;
  return (ifNoneMatch.match(/(?:W\/)?"[^"]*"/g) ?? []).some((tag) => tag.replace(/^W\//, "") === etag);
}

/**
 * `GET /openapi.json`: the document as the build wrote it (build/artefacts.ts), never built here (it
 * cost about 150 ms of CPU per request: bench/tried.md), with the service's own origin (PUBLIC_BASE_URL,
 * else the request's) first among its servers.
 */
export async function openApiJson(c: Context<HonoEnv>) {
  const origin = c.var.config.PUBLIC_BASE_URL ?? new URL(c.req.url).origin;
  let document = served.get(origin);
  if (!document) {
    document = await servedAt(origin);
    if (served.size >= 8) served.delete(served.keys().next().value!);
    served.set(origin, document);
  }
  c.header("ETag", document.etag);
  c.header("Cache-Control", CACHE_CONTROL);
  if (matches(c.req.header("If-None-Match"), document.etag)) return c.body(null, 304);
  return c.body(document.body, 200, { "Content-Type": "application/json" });
}
