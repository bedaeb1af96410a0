/**
 * A request's validators compiled ahead of time from its zod schemas (src/http/request-compiler.ts), by
 * the part of the request each checks (as Hono's `validator` names them). Each answers what zod's parse
 * would, or `undefined` where it cannot be sure the request is valid: zod then decides, and says why.
 */
export type CompiledRequest = Partial<Record<"query" | "param", (value: unknown) => unknown>>;
