import { createMiddleware } from "hono/factory";
import type { Problem } from "../domain/result";
import type { HonoEnv } from "../env";
import { ApiError, attributePath, MAX_LISTED_PROBLEMS } from "./errors";

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;
/** A UTF-16 surrogate that is not half of a pair: no character, and stored it would turn into U+FFFD. */
const LONE_SURROGATE = /\p{Surrogate}/u;
/**
 * Where a surrogate can come from at all: the text is valid UTF-8, which cannot encode one, so only a
 * `\uD800`–`\uDFFF` escape makes one. A body without such an escape needs no walk through its values.
 */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
/**
 * The deepest nesting of objects and arrays a body may have. The API's deepest request is five levels
 * (`order.items[0].totalPrice.amount`); unknown fields are ignored, but a body nested thousands deep is
 * no request, only work for whoever walks it.
 */
export const MAX_DEPTH = 32;
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/**
 * Reads a POST/PUT body once, after the size limit has been applied, and leaves the parsed value in
 * Hono's body cache for the validators. An empty body parses as `{}` (the spec lets several operations
 * take one); a non-empty body must be JSON (415 otherwise), whole, valid UTF-8, well-formed and nested
 * at most MAX_DEPTH deep, with no lone surrogate in any string (400 otherwise, naming the attribute):
 * whatever is accepted is stored and echoed exactly as sent. Every check is one pass over the text or
 * the value, without recursion, so its work grows with the body's size and no further.
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
    if (nestingDepth(text) > MAX_DEPTH) {
      throw ApiError.of([
        { code: "INVALID_REQUEST", message: `the body nests objects and arrays deeper than ${MAX_DEPTH} levels` },
      ]);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw ApiError.of([{ code: "MALFORMED_JSON", message: "request body is not valid JSON" }]);
    }
    if (SURROGATE_ESCAPE.test(text)) {
      const { problems, total } = loneSurrogates(value);
      if (total > 0) throw ApiError.of(problems, total);
    }
  }
  // Hono's json() parses the cached text: an empty body reads as `{}`.
  // (The cache holds promises at run time, whatever its declared type says.)
  (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(empty ? "{}" : text);
  await next();
});

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]); // [ {
const CLOSERS = new Set([0x5d, 0x7d]); // ] }

/**
 * How deep the text nests brackets outside strings, read before parsing; it stops counting once past
 * MAX_DEPTH. For text that is not JSON the number means nothing, and JSON.parse refuses it next.
 */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === BACKSLASH) i++;
      else if (char === QUOTE) inString = false;
    } else if (char === QUOTE) inString = true;
    else if (OPENERS.has(char)) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > MAX_DEPTH) return deepest;
      }
    } else if (CLOSERS.has(char)) depth--;
  }
  return deepest;
}

/**
 * The strings (and object keys) holding a lone surrogate, at their attributes: the first
 * MAX_LISTED_PROBLEMS of them (an answer lists no more) and how many there are in all. Walked with a
 * stack of its own, never by recursion.
 */
export function loneSurrogates(root: unknown): { problems: Problem[]; total: number } {
  const problems: Problem[] = [];
  let found = 0;
  const report = (path: readonly (string | number)[]) => {
    found++;
    if (problems.length < MAX_LISTED_PROBLEMS) {
      problems.push({
        code: "INVALID_VALUE",
        message: "holds an unpaired UTF-16 surrogate, which is no character",
        ...(path.length > 0 ? { attribute: attributePath(path) } : {}),
      });
    }
  };
  const pending: [unknown, (string | number)[]][] = [[root, []]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, path] = next;
    if (typeof value === "string") {
      if (LONE_SURROGATE.test(value)) report(path);
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) pending.push([value[i], [...path, i]]);
    } else if (value !== null && typeof value === "object") {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        if (LONE_SURROGATE.test(key)) report([...path, key]);
        else pending.push([child, [...path, key]]);
      }
    }
  }
  return { problems, total: found };
}
