import { describe, expect, it } from "vitest";
import { config, type Env } from "../src/config";

const PEPPER = "p".repeat(16);
/** Bindings are passed through unread: a stand-in is enough, so this test runs in plain Node. */
const DB = {} as D1Database;
const parse = (vars: Partial<Env>) => config({ DB, AUTH_PEPPER: PEPPER, ...vars } as Env);

describe("config", () => {
  it("fills every variable left unset with its default", () => {
    expect(parse({})).toEqual({
      REQUIRE_HTTPS: true,
      SERVICE_TIMEZONE: "UTC",
      ALLOWED_URL_PORTS: [],
      RATE_LIMIT_REQUESTS: 600,
      RATE_LIMIT_WINDOW_SECONDS: 60,
      LOGIN_MAX_FAILURES: 5,
      LOGIN_FAILURE_WINDOW_SECONDS: 900,
      LOGIN_MAX_FAILURES_PER_ADDRESS: 20,
      STORAGE_QUOTA_BYTES: 1024 * 1024 * 1024,
      SIGNING_SECRET_OVERLAP_SECONDS: 86400,
      DECISION_LIMITS: {
        DEFERRED_PAYMENT: { CZK: 5000000, EUR: 200000 },
        PAY_IN_THREE: { CZK: 10000000, EUR: 400000 },
      },
      CUSTOMER_DECISION_TTL_SECONDS: 72 * 3600,
      AUTHORIZATION_TTL_DAYS: 28,
      AUTHORIZATION_MAX_DAYS: 180,
      AUTHORIZATION_REMINDER_DAYS: 7,
      // Off unless set: the sandbox's scenarios never run in a production default.
      SANDBOX: false,
      SANDBOX_REVIEW_SECONDS: 600,
      PAYOUT_CUTOFF_HOUR: 0,
      ARCHIVE_AFTER_DAYS: 90,
      AUTH_PEPPER: PEPPER,
      COUNT_BINDINGS: false,
      DRAIN_UNREAD_BODIES: false,
    });
  });

  it("reads the strings variables arrive as", () => {
    expect(
      parse({
        REQUIRE_HTTPS: "0",
        COUNT_BINDINGS: "true",
        SERVICE_TIMEZONE: "Europe/Prague",
        ALLOWED_URL_PORTS: " 8443, 9000 ",
        PUBLIC_BASE_URL: "https://partners.example.com//",
        RATE_LIMIT_REQUESTS: "25",
        DECISION_LIMITS: '{"PAY_IN_THREE":{"EUR":0}}',
        PAYOUT_CUTOFF_HOUR: "23",
      }),
    ).toMatchObject({
      REQUIRE_HTTPS: false,
      COUNT_BINDINGS: true,
      SERVICE_TIMEZONE: "Europe/Prague",
      ALLOWED_URL_PORTS: [8443, 9000],
      PUBLIC_BASE_URL: "https://partners.example.com",
      RATE_LIMIT_REQUESTS: 25,
      DECISION_LIMITS: { PAY_IN_THREE: { EUR: 0 } },
      PAYOUT_CUTOFF_HOUR: 23,
    });
    expect(parse({ PUBLIC_BASE_URL: "" }).PUBLIC_BASE_URL).toBeUndefined();
  });

  it("names every invalid variable, never its value", () => {
    expect(() =>
      parse({
        AUTH_PEPPER: "short",
        REQUIRE_HTTPS: "yes",
        SERVICE_TIMEZONE: "Mars/Olympus",
        ALLOWED_URL_PORTS: "80;443",
        PUBLIC_BASE_URL: "not a url",
        RATE_LIMIT_REQUESTS: "1.5",
        RATE_LIMIT_WINDOW_SECONDS: "0",
        LOGIN_MAX_FAILURES: "many",
        DECISION_LIMITS: '{"PAY_IN_THREE":{"EUR":-1}}',
        PAYOUT_CUTOFF_HOUR: "24",
      }),
    ).toThrow(
      "invalid configuration: REQUIRE_HTTPS, SERVICE_TIMEZONE, ALLOWED_URL_PORTS, PUBLIC_BASE_URL, RATE_LIMIT_REQUESTS, RATE_LIMIT_WINDOW_SECONDS, LOGIN_MAX_FAILURES, DECISION_LIMITS, PAYOUT_CUTOFF_HOUR, AUTH_PEPPER",
    );
    expect(() => parse({ DECISION_LIMITS: "{not json" })).toThrow("invalid configuration: DECISION_LIMITS");
  });
});
