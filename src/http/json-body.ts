import { createMiddleware } from "hono/factory";
import type { HonoEnv } from "../env";
import { ApiError } from "./errors";

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

/**
 * Reads a POST/PUT body once, after the size limit has been applied, and leaves the parsed value in
 * Hono's body cache for the validators. An empty body parses as `{}` (the spec lets several operations
 * take one); a non-empty body must be JSON (415 otherwise) and well-formed (400 otherwise).
 */
export const jsonBody = createMiddleware<HonoEnv>(async (c, next) => {
  if (c.req.method !== "POST" && c.req.method !== "PUT") return next();
  const text = new TextDecoder().decode(await c.req.arrayBuffer());
  const empty = text.trim() === "";
  if (!empty) {
    const mediaType = (c.req.header("Content-Type") ?? "").split(";")[0]!.trim();
    if (!JSON_MEDIA_TYPE.test(mediaType)) {
      throw new ApiError("unsupported_media_type", "request body must be JSON (Content-Type: application/json)");
    }
    try {
      JSON.parse(text);
    } catch {
      throw ApiError.of([{ code: "MALFORMED_JSON", message: "request body is not valid JSON" }]);
    }
  }
  // Hono's json() parses the cached text: an empty body reads as `{}`.
  // (The cache holds promises at run time, whatever its declared type says.)
  (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(empty ? "{}" : text);
  await next();
});
