import type { Context } from "hono";
import { OPENAPI_DOCUMENT, OPENAPI_ETAG } from "../../../generated/openapi-document";
import type { HonoEnv } from "../../env";

/**
 * How long a client or a cache may keep the document without asking again. It changes only with a
 * deployment; after that, asking again costs a 304 while the ETag holds.
 */
const CACHE_CONTROL = "public, max-age=300";

/** Whether `If-None-Match` (a list of entity tags, weak ones included, or `*`) names the document's. */
function matches(ifNoneMatch: string | undefined): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === "*") return true;
  return (ifNoneMatch.match(/(?:W\/)?"[^"]*"/g) ?? []).some((tag) => tag.replace(/^W\//, "") === OPENAPI_ETAG);
}

/**
 * `GET /openapi.json`: the document as the build wrote it (build/artefacts.ts), never built here;
 * with its ETag, so that a client holding it gets a 304 without the 300 KB.
 */
export function openApiJson(c: Context<HonoEnv>) {
  c.header("ETag", OPENAPI_ETAG);
  c.header("Cache-Control", CACHE_CONTROL);
  if (matches(c.req.header("If-None-Match"))) return c.body(null, 304);
  return c.body(OPENAPI_DOCUMENT, 200, { "Content-Type": "application/json" });
}
