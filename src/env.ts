import type { NotificationMessage } from "./notifications/message";
import type { RateLimiter } from "./rate-limit/durable-object";

/** Bindings and variables of the Worker (wrangler.toml), typed once. Variables arrive as strings. */
export interface Env {
  DB: D1Database;
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
  NOTIFICATIONS: Queue<NotificationMessage>;
  REQUIRE_HTTPS: string;
  SERVICE_TIMEZONE: string;
  PUBLIC_BASE_URL?: string;
  RATE_LIMIT_REQUESTS: string;
  RATE_LIMIT_WINDOW_SECONDS: string;
  LOGIN_MAX_FAILURES: string;
  LOGIN_FAILURE_WINDOW_SECONDS: string;
  DECISION_LIMITS: string;
  /** "true" only in benchmarks and tests: responses report the D1 and Durable Object calls they made. */
  COUNT_BINDINGS?: string;
  /** Secret: peppers password hashes and derives the key that encrypts API keys. */
  AUTH_PEPPER: string;
}

export interface Session {
  partnerId: string;
  tokenHash: string;
}

export type HonoEnv = {
  Bindings: Env;
  Variables: {
    requestId: string;
    /** Set by the session middleware when the bearer token is valid. */
    session?: Session;
    /** Why there is no session: no Authorization header, or a token that is not valid. */
    sessionProblem?: "missing" | "invalid";
  };
};
