import { createMiddleware } from "hono/factory";
import type { Problem } from "../domain/result";
import type { HonoEnv } from "../env";
import { ApiError, attributePath } from "./errors";

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;
/** A UTF-16 surrogate that is not half of a pair: no character, and stored it would turn into U+FFFD. */
const LONE_SURROGATE = /\p{Surrogate}/u;
/**
 * Where a surrogate can come from at all: the text is valid UTF-8, which cannot encode one, so only a
 * `\uD800`–`\uDFFF` escape makes one. A body without such an escape needs no walk through its values.
 */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/**
 * Reads a POST/PUT body once, after the size limit has been applied, and leaves the parsed value in
 * Hono's body cache for the validators. An empty body parses as `{}` (the spec lets several operations
 * take one); a non-empty body must be JSON (415 otherwise), whole, valid UTF-8 and well-formed, with no
 * lone surrogate in any string (400 otherwise, naming the attribute): whatever is accepted is stored
 * and echoed exactly as sent.
 */
export const jsonBody = createMiddleware<HonoEnv>(async (c, next) => {
  if (c.req.method !== "POST" && c.req.method !== "PUT") return next();
  let bytes: ArrayBuffer;
  try {
    bytes = await c.req.arrayBuffer();
  } catch (error) {
    // The size limit's own refusal passes; anything else is a body the client did not send whole.
    if (error instanceof ApiError) throw error;
    throw ApiError.of([{ code: "INVALID_REQUEST", message: "the request body could not be read to its end" }]);
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw ApiError.of([{ code: "MALFORMED_JSON", message: "request body is not valid UTF-8" }]);
  }
  const empty = text.trim() === "";
  if (!empty) {
    const mediaType = (c.req.header("Content-Type") ?? "").split(";")[0]!.trim();
    if (!JSON_MEDIA_TYPE.test(mediaType)) {
      throw new ApiError("unsupported_media_type", "request body must be JSON (Content-Type: application/json)");
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw ApiError.of([{ code: "MALFORMED_JSON", message: "request body is not valid JSON" }]);
    }
    const broken = SURROGATE_ESCAPE.test(text) ? loneSurrogates(value, []) : [];
    if (broken.length > 0) throw ApiError.of(broken);
  }
  // Hono's json() parses the cached text: an empty body reads as `{}`.
  // (The cache holds promises at run time, whatever its declared type says.)
  (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(empty ? "{}" : text);
  await next();
});

/** Every string (and object key) holding a lone surrogate, at its attribute. */
function loneSurrogates(value: unknown, path: (string | number)[]): Problem[] {
  const problem = (at: (string | number)[]): Problem => ({
    code: "INVALID_VALUE",
    message: "holds an unpaired UTF-16 surrogate, which is no character",
    ...(at.length > 0 ? { attribute: attributePath(at) } : {}),
  });
  if (typeof value === "string") return LONE_SURROGATE.test(value) ? [problem(path)] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => loneSurrogates(v, [...path, i]));
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([k, v]) =>
      LONE_SURROGATE.test(k) ? [problem([...path, k])] : loneSurrogates(v, [...path, k]),
    );
  }
  return [];
}
