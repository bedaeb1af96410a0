/**
 * The Worker's bindings and variables, typed and parsed here once. Every variable and its default is
 * written in VARIABLES only: wrangler.toml sets none, so the deployed Worker, `npm start` and the
 * tests all start from these defaults and override what they must.
 */
import type { DeadlinePolicy } from "./domain/deadlines";
import type { UrlPolicy } from "./domain/url-safety";
import type { EndpointMailbox } from "./mailbox/durable-object";
import type { NotificationMessage } from "./notifications/message";
import type { RateLimiter } from "./rate-limit/durable-object";

/*
 * Plain parsers rather than a zod schema: every request reads the configuration, so this module is
 * part of the Worker's startup, and zod's module with a schema built from it cost more CPU there than
 * the rest of the middleware chain together (see bench/startup.ts). Each parser takes the variable's
 * raw value (undefined when unset) and answers its value or INVALID.
 */
const INVALID = Symbol("invalid");
type Parser<T> = (raw: unknown) => T | typeof INVALID;

const flag =
  (fallback: boolean): Parser<boolean> =>
  (raw) => {
    if (raw === undefined) return fallback;
    if (raw === "true" || raw === "1") return true;
    if (raw === "false" || raw === "0") return false;
    return INVALID;
  };

/** A positive safe integer, from a string or a number. */
const positiveInt =
  (fallback: number): Parser<number> =>
  (raw) => {
    if (raw === undefined) return fallback;
    const value = Number(raw);
    return Number.isSafeInteger(value) && value > 0 ? value : INVALID;
  };

const isTimeZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat("en-GB", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

const isUrl = (text: string) => {
  try {
    new URL(text);
    return true;
  } catch {
    return false;
  }
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Highest financed total (minor units) per type and currency: type → currency → non-negative integer. */
type DecisionLimits = Record<string, Record<string, number>>;

const decisionLimits = (json: string): DecisionLimits | typeof INVALID => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return INVALID;
  }
  const valid =
    isRecord(parsed) &&
    Object.values(parsed).every(
      (byCurrency) =>
        isRecord(byCurrency) &&
        Object.values(byCurrency).every((limit) => Number.isSafeInteger(limit) && (limit as number) >= 0),
    );
  return valid ? (parsed as DecisionLimits) : INVALID;
};

const VARIABLES = {
  /** Refuse plain HTTP (403) and partner URLs that are not https. Off for local development and tests. */
  REQUIRE_HTTPS: flag(true),
  /** An IANA time zone. */
  SERVICE_TIMEZONE: (raw: unknown) => {
    const tz = raw ?? "UTC";
    return typeof tz === "string" && isTimeZone(tz) ? tz : INVALID;
  },
  /** Ports besides 443 that partner URLs may use where HTTPS is required, comma-separated. */
  ALLOWED_URL_PORTS: (raw: unknown) => {
    if (raw !== undefined && typeof raw !== "string") return INVALID;
    const ports = (raw ?? "").replace(/\s/g, "");
    return /^(\d{1,5}(,\d{1,5})*)?$/.test(ports) ? ports.split(",").filter(Boolean).map(Number) : INVALID;
  },
  /** The service's origin in links, without trailing slashes; unset or empty: the request's origin. */
  PUBLIC_BASE_URL: (raw: unknown) => {
    if (raw === undefined || raw === "") return undefined;
    if (typeof raw !== "string" || !isUrl(raw.trim())) return INVALID;
    return raw.trim().replace(/\/+$/, "");
  },
  RATE_LIMIT_REQUESTS: positiveInt(600),
  RATE_LIMIT_WINDOW_SECONDS: positiveInt(60),
  LOGIN_MAX_FAILURES: positiveInt(5),
  LOGIN_FAILURE_WINDOW_SECONDS: positiveInt(900),
  /** Failed logins per client address in the same window (shared offices and NAT get more room). */
  LOGIN_MAX_FAILURES_PER_ADDRESS: positiveInt(20),
  /**
   * Bytes a partner's rows may hold in the database every partner shares (src/db/storage.ts), unless an
   * operator gave the partner a quota of its own (`npm run partner:quota`). Default 1 GiB.
   */
  STORAGE_QUOTA_BYTES: positiveInt(1024 * 1024 * 1024),
  /** After a rotation, how long the previous signing secret still signs notifications beside the new one. */
  SIGNING_SECRET_OVERLAP_SECONDS: positiveInt(86400),
  /** Highest financed total (minor units) the automatic decision approves, per type and currency (JSON). */
  DECISION_LIMITS: (raw: unknown) => {
    const json =
      raw ?? '{"DEFERRED_PAYMENT":{"CZK":5000000,"EUR":200000},"PAY_IN_THREE":{"CZK":10000000,"EUR":400000}}';
    return typeof json === "string" ? decisionLimits(json) : INVALID;
  },
  /** How long the customer has to decide at the gateway (CONTRACT 6a). Default 72 hours. */
  CUSTOMER_DECISION_TTL_SECONDS: positiveInt(72 * 3600),
  /** How long an approval's authorization of goods not yet sent lasts, from approval or an extension. */
  AUTHORIZATION_TTL_DAYS: positiveInt(28),
  /** The latest an authorization may be extended to, in days after approval. */
  AUTHORIZATION_MAX_DAYS: positiveInt(180),
  /** How many days before an authorization's end its AUTHORIZATION_EXPIRING reminder is sent. */
  AUTHORIZATION_REMINDER_DAYS: positiveInt(7),
  /**
   * Sandbox behaviour: the e-mail scenarios of the decision (+approve, +reject, +review,
   * +review-reject) and POST /financing/v1/sandbox/…/advance-time. Off unless set: never in production.
   */
  SANDBOX: flag(false),
  /** Sandbox: how long a manual review takes before it settles. */
  SANDBOX_REVIEW_SECONDS: positiveInt(600),
  /**
   * The hour of the day, on SERVICE_TIMEZONE's clock, at which each day's payouts close (CONTRACT 6b):
   * the entries created before it are paid in that day's payout.
   */
  PAYOUT_CUTOFF_HOUR: (raw: unknown) => {
    if (raw === undefined) return 0;
    const hour = Number(raw);
    return Number.isInteger(hour) && hour >= 0 && hour <= 23 ? hour : INVALID;
  },
  /** Secret: peppers password hashes and derives the key that encrypts API keys (at least 16 characters). */
  AUTH_PEPPER: (raw: unknown) => (typeof raw === "string" && raw.length >= 16 ? raw : INVALID),
  /**
   * Days a finished application stays in the database with nothing left to happen before the cron moves
   * it to the archive (src/domain/archive.ts, docs/operations.md): read by id from then on, no longer in
   * lists. A partner-contract change (docs/partner/archive.md); default 90.
   */
  ARCHIVE_AFTER_DAYS: positiveInt(90),
  /** Benchmarks and tests only: responses report the D1 and Durable Object calls they made. */
  COUNT_BINDINGS: flag(false),
  /** Local development only (`npm start` sets it): read a body the answer did not need (src/http/body-limit.ts). */
  DRAIN_UNREAD_BODIES: flag(false),
} satisfies Record<string, Parser<unknown>>;

type Variable = keyof typeof VARIABLES;

export type Config = { [Name in Variable]: Exclude<ReturnType<(typeof VARIABLES)[Name]>, typeof INVALID> };

/**
 * Bindings of the Worker (wrangler.toml) and its variables, which arrive as strings. `DB` is the
 * directory (partners, their credentials and tokens) and shard 0; `SHARD_1`, `SHARD_2`, … are the other
 * shards, each holding its partners' applications and all that hangs on them (src/db/shards.ts).
 */
export type Env = {
  DB: D1Database;
  [shard: `SHARD_${number}`]: D1Database | undefined;
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
  ENDPOINT_MAILBOXES: DurableObjectNamespace<EndpointMailbox>;
  NOTIFICATIONS: Queue<NotificationMessage>;
  /** The files of documents kept with orders; D1 keeps their metadata (src/db/document-files.ts). */
  DOCUMENTS: R2Bucket;
  /** Finished applications moved out of the database, one object each (src/db/archive.ts). */
  ARCHIVE: R2Bucket;
} & { [Name in Variable]?: string };

// Bindings are fixed for the life of an isolate: parse once per env object, fail loudly on bad config.
const cache = new WeakMap<Env, Config>();

export function config(env: Env): Config {
  let parsed = cache.get(env);
  if (!parsed) {
    const values: Record<string, unknown> = {};
    const invalid: string[] = [];
    for (const [name, parse] of Object.entries(VARIABLES)) {
      const value = parse(env[name as Variable]);
      if (value === INVALID) invalid.push(name);
      else values[name] = value;
    }
    // Names the variable, never its value (the pepper is a secret).
    if (invalid.length > 0) throw new Error(`invalid configuration: ${invalid.join(", ")}`);
    parsed = values as Config;
    cache.set(env, parsed);
  }
  return parsed;
}

const DAY_MS = 86_400_000;

/** The deadlines of an application's life (src/domain/deadlines.ts). */
export function deadlinePolicy(cfg: Config): DeadlinePolicy {
  return {
    customerDecisionMs: cfg.CUSTOMER_DECISION_TTL_SECONDS * 1000,
    authorizationMs: cfg.AUTHORIZATION_TTL_DAYS * DAY_MS,
    authorizationMaxMs: cfg.AUTHORIZATION_MAX_DAYS * DAY_MS,
    reminderMs: cfg.AUTHORIZATION_REMINDER_DAYS * DAY_MS,
  };
}

/** The archive's age in milliseconds (src/domain/archive.ts). */
export const archiveAfterMs = (cfg: Config): number => cfg.ARCHIVE_AFTER_DAYS * DAY_MS;

/** Where partner URLs may lead (src/domain/url-safety.ts). */
export function urlPolicy(cfg: Config): UrlPolicy {
  return { requireHttps: cfg.REQUIRE_HTTPS, allowedPorts: cfg.ALLOWED_URL_PORTS };
}
