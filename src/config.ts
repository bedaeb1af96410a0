/**
 * The Worker's bindings and variables, typed and parsed here once. Every variable and its default is
 * written in ConfigSchema only: wrangler.toml sets none, so the deployed Worker, `npm start` and the
 * tests all start from these defaults and override what they must.
 */
import { z } from "zod";
import type { UrlPolicy } from "./domain/url-safety";
import type { NotificationMessage } from "./notifications/message";
import type { RateLimiter } from "./rate-limit/durable-object";

const flag = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");
const positiveInt = z.coerce.number().int().positive();

const DecisionLimits = z.record(z.string(), z.record(z.string(), z.number().int().nonnegative()));

const ConfigSchema = z.object({
  /** Refuse plain HTTP (403) and partner URLs that are not https. Off for local development and tests. */
  REQUIRE_HTTPS: flag.default(true),
  SERVICE_TIMEZONE: z
    .string()
    .default("UTC")
    .refine((tz) => {
      try {
        new Intl.DateTimeFormat("en-GB", { timeZone: tz });
        return true;
      } catch {
        return false;
      }
    }, "not an IANA time zone"),
  /** Ports besides 443 that partner URLs may use where HTTPS is required, comma-separated. */
  ALLOWED_URL_PORTS: z
    .string()
    .default("")
    .refine((s) => /^(\d{1,5}(,\d{1,5})*)?$/.test(s.replace(/\s/g, "")), "a comma-separated list of ports")
    .transform((s) => s.replace(/\s/g, "").split(",").filter(Boolean).map(Number)),
  PUBLIC_BASE_URL: z
    .union([z.literal(""), z.url()])
    .optional()
    .transform((v) => (v ? v.replace(/\/+$/, "") : undefined)),
  RATE_LIMIT_REQUESTS: positiveInt.default(600),
  RATE_LIMIT_WINDOW_SECONDS: positiveInt.default(60),
  LOGIN_MAX_FAILURES: positiveInt.default(5),
  LOGIN_FAILURE_WINDOW_SECONDS: positiveInt.default(900),
  /** Failed logins per client address in the same window (shared offices and NAT get more room). */
  LOGIN_MAX_FAILURES_PER_ADDRESS: positiveInt.default(20),
  /** After a rotation, how long the previous signing secret still signs notifications beside the new one. */
  SIGNING_SECRET_OVERLAP_SECONDS: positiveInt.default(86400),
  /** Highest financed total (minor units) the automatic decision approves, per type and currency (JSON). */
  DECISION_LIMITS: z
    .string()
    .default('{"DEFERRED_PAYMENT":{"CZK":5000000,"EUR":200000},"PAY_IN_THREE":{"CZK":10000000,"EUR":400000}}')
    .transform((s, ctx) => {
      const parsed = DecisionLimits.safeParse(JSON.parse(s));
      if (!parsed.success) {
        ctx.addIssue({ code: "custom", message: "DECISION_LIMITS must map type → currency → integer" });
        return z.NEVER;
      }
      return parsed.data;
    }),
  /** Secret: peppers password hashes and derives the key that encrypts API keys. */
  AUTH_PEPPER: z.string().min(16, "AUTH_PEPPER secret must be set (at least 16 characters)"),
  /** Benchmarks and tests only: responses report the D1 and Durable Object calls they made. */
  COUNT_BINDINGS: flag.default(false),
});

export type Config = z.infer<typeof ConfigSchema>;

/** Bindings of the Worker (wrangler.toml) and its variables, which arrive as strings. */
export type Env = {
  DB: D1Database;
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
  NOTIFICATIONS: Queue<NotificationMessage>;
} & { [Variable in keyof z.input<typeof ConfigSchema>]?: string };

// Bindings are fixed for the life of an isolate: parse once per env object, fail loudly on bad config.
const cache = new WeakMap<Env, Config>();

export function config(env: Env): Config {
  let parsed = cache.get(env);
  if (!parsed) {
    const result = ConfigSchema.safeParse(env);
    if (!result.success) {
      // Names the variable, never its value (the pepper is a secret).
      throw new Error(`invalid configuration: ${result.error.issues.map((i) => i.path.join(".")).join(", ")}`);
    }
    parsed = result.data;
    cache.set(env, parsed);
  }
  return parsed;
}

/** Where partner URLs may lead (src/domain/url-safety.ts). */
export function urlPolicy(cfg: Config): UrlPolicy {
  return { requireHttps: cfg.REQUIRE_HTTPS, allowedPorts: cfg.ALLOWED_URL_PORTS };
}
