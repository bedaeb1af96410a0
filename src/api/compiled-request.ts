/**
 * What a compiled validator answers where it cannot be sure the request is valid: zod then decides, and
 * says why. A value of its own, so that it never reads as a valid value that is undefined.
 */
export const UNSURE: unique symbol = Symbol("unsure");

/**
 * A request's validators compiled ahead of time from its zod schemas (build/request-compiler.ts), by
 * the part of the request each checks (as Hono's `validator` names them). Each answers what zod's parse
 * would, or UNSURE.
 */
export type CompiledRequest = Partial<Record<CompiledTarget, (value: unknown) => unknown>>;

/**
 * The request parts a validator may be compiled for: Hono's name for each and the definition's, in the
 * order OpenAPIHono validates them (the query, the path, the headers, then the JSON body).
 */
export const COMPILED_PARTS = [
  ["query", "query"],
  ["param", "params"],
  ["header", "headers"],
  ["json", "body"],
] as const;

export type CompiledTarget = (typeof COMPILED_PARTS)[number][0];
