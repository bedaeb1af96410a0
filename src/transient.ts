/** What the triggers of migration 0019 raise for a write of a partner being moved between shards. */
export const PARTNER_MOVING = "partner is moving between shards";

/**
 * Failures of D1 and Durable Objects that say "not now" rather than "never": the platform restarting
 * or moving a database or object, a lost connection, an overloaded object, a database busy with
 * another connection's lock. Cloudflare lists them with the recommended action "retry" (D1:
 * developers.cloudflare.com/d1/observability/debug-d1/#error-list; Durable Objects:
 * …/durable-objects/observability/troubleshooting/), and Durable Object errors say so themselves in
 * `retryable` and `overloaded`. They are answered 503 with Retry-After, never 500.
 */
const TRANSIENT_MESSAGES = [
  "Network connection lost",
  "reset because its code was updated",
  "caused object to be reset",
  "is overloaded",
  "transient issue",
  "Durable Object storage operation exceeded timeout",
  // A partner's write on a shard it is being moved off, or has left (migration 0019, src/db/partner-move.ts):
  // its retry, once the move has switched the partner, goes to the new shard.
  PARTNER_MOVING,
];

/**
 * SQLite's result code for a database whose lock another connection holds, with its extended codes
 * (SQLITE_BUSY_RECOVERY, _SNAPSHOT, _TIMEOUT). The D1 binding's errors carry no code property (the
 * runtime builds them as `new Error("D1_ERROR: " + message)`); the result code is the last word of the
 * message SQLite's error becomes (`database is locked: SQLITE_BUSY`, `no such table: x: SQLITE_ERROR`),
 * so the code is read there, never the prose before it.
 */
const BUSY = /^SQLITE_BUSY(_[A-Z]+)?$/;

/**
 * How the local runtime hands a Worker a busy database: when `wrangler d1 execute` or a second
 * `npm start` holds the SQLite file's lock, miniflare's D1 object fails inside workerd's SQLite layer,
 * and workerd gives JavaScript only its marker for a failure of the runtime itself, `internal error;
 * reference = <id>` (SQLITE_BUSY appears in workerd's own log, not in the error). An error of the
 * query is never one of these: SQL errors carry their SQLite code. Only D1's errors are read this way.
 */
const D1_INTERNAL_ERROR = /^D1_ERROR: (.*Error: )?internal error; reference = /;

interface PlatformError {
  message?: string;
  retryable?: boolean;
  overloaded?: boolean;
  cause?: unknown;
}

/** The SQLite result code a D1 error's message ends with (`…: SQLITE_BUSY`), if it has one. */
function sqliteCode(message: string): string | undefined {
  return /: (SQLITE_[A-Z_]+)\s*$/.exec(message)?.[1];
}

/** Whether the error (or one it wraps, as Drizzle wraps D1's) is a transient failure of the platform. */
export function isTransient(error: unknown): boolean {
  for (let e = error as PlatformError | undefined; e; e = e.cause as PlatformError | undefined) {
    if (e.retryable === true || e.overloaded === true) return true;
    const message = String(e.message ?? "");
    if (TRANSIENT_MESSAGES.some((m) => message.includes(m))) return true;
  }
  return isBusy(error);
}

/** Whether the error (or one it wraps) is a database busy with another connection's lock. */
function isBusy(error: unknown): boolean {
  for (let e = error as PlatformError | undefined; e; e = e.cause as PlatformError | undefined) {
    const message = String(e.message ?? "");
    if (BUSY.test(sqliteCode(message) ?? "") || D1_INTERNAL_ERROR.test(message)) return true;
  }
  return false;
}

/** Whether the error is a write refused because its partner is moving between shards (PARTNER_MOVING). */
export function isPartnerMoving(error: unknown): boolean {
  for (let e = error as PlatformError | undefined; e; e = e.cause as PlatformError | undefined) {
    if (String(e.message ?? "").includes(PARTNER_MOVING)) return true;
  }
  return false;
}

/** Whether a Durable Object refused the call because too many are queued: retrying at once only deepens it. */
export function isOverloaded(error: unknown): boolean {
  for (let e = error as PlatformError | undefined; e; e = e.cause as PlatformError | undefined) {
    if (e.overloaded === true || String(e.message ?? "").includes("is overloaded")) return true;
  }
  return false;
}

/** Seconds a client should wait: an overloaded object needs its queue to drain, a restart only a moment. */
export function retryAfterSeconds(error: unknown): number {
  return isOverloaded(error) ? 5 : 1;
}

/** Attempts after the first for an idempotent read, and the pause before each (milliseconds, ± half). */
export const READ_RETRY_DELAYS_MS = [50, 200];

/**
 * The same for a database busy with another connection's lock, which only the local runtime meets (a
 * second process on the same SQLite file: `npm run cron`, `wrangler d1 execute`; D1 serialises its
 * writes). The lock ends with that process's transaction, which on a loaded machine can outlast the
 * quarter second above (one read of 576 answered 503 beside `npm run cron` in CI): up to about 1.5 s.
 */
export const BUSY_READ_RETRY_DELAYS_MS = [50, 200, 400, 800];

/**
 * Runs an idempotent read, again after a transient failure, at most READ_RETRY_DELAYS_MS.length more
 * times (BUSY_READ_RETRY_DELAYS_MS for a busy database): a blip is absorbed within a quarter second, a
 * longer outage still ends in 503 promptly.
 */
export async function retryingRead<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      const delay = (isBusy(error) ? BUSY_READ_RETRY_DELAYS_MS : READ_RETRY_DELAYS_MS)[attempt];
      if (delay === undefined || !isTransient(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay * (0.5 + Math.random())));
    }
  }
}
