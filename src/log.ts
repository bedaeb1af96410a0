/**
 * The service's one logger: every log line is one JSON object with `level`, `message` and fields, read
 * by Workers Logs (`wrangler tail`, the dashboard). Never log a password, token, API key, signing
 * secret, file content or request body; an error is logged by `errorFields`, which keeps what says why
 * it failed and drops the values a query was run with (they may hold personal data).
 */

export type Level = "info" | "warn" | "error";

const WRITE: Record<Level, (line: string) => void> = {
  info: (line) => console.log(line),
  warn: (line) => console.warn(line),
  error: (line) => console.error(line),
};

export function log(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  WRITE[level](JSON.stringify({ level, message, ...fields }));
}

/** An error as it is logged: its kind, message and code, the platform's flags, and what caused it. */
export interface ErrorSummary {
  name: string;
  message: string;
  code?: string | number;
  retryable?: boolean;
  overloaded?: boolean;
  cause?: ErrorSummary;
}

/** Causes followed at most: a cycle or a deep wrap must not make a log line grow without end. */
const MAX_CAUSES = 5;
const MAX_MESSAGE = 1000;

/**
 * `{error: …}` for a log line. Drizzle wraps a failed query as "Failed query: <sql>\nparams: <values>";
 * the values are cut off (the SQL is kept: it has placeholders, no values), and the database's own
 * error, its cause, follows with the reason (D1's message and code, e.g. SQLITE_BUSY).
 */
export function errorFields(error: unknown): { error: ErrorSummary } {
  return { error: summary(error, MAX_CAUSES) };
}

function summary(error: unknown, depth: number): ErrorSummary {
  if (!(error instanceof Error)) return { name: typeof error, message: String(error).slice(0, MAX_MESSAGE) };
  const e = error as Error & { code?: unknown; retryable?: unknown; overloaded?: unknown; params?: unknown };
  let message = e.message;
  if ("params" in e) message = message.replace(/\nparams: [\s\S]*$/, "");
  return {
    name: e.name,
    message: message.slice(0, MAX_MESSAGE),
    ...(typeof e.code === "string" || typeof e.code === "number" ? { code: e.code } : {}),
    ...(typeof e.retryable === "boolean" ? { retryable: e.retryable } : {}),
    ...(typeof e.overloaded === "boolean" ? { overloaded: e.overloaded } : {}),
    ...(e.cause !== undefined && depth > 1 ? { cause: summary(e.cause, depth - 1) } : {}),
  };
}
