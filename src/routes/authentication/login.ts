import { z } from "@hono/zod-openapi";
import { DECOY_PASSWORD_HASH, randomSecret, sha256Hex, verifyPassword } from "../../auth/crypto";
import { now } from "../../clock";
import type { Config, Env } from "../../config";
import { database } from "../../db/client";
import { partnerByUsername, recordAccessToken } from "../../db/partners";
import { ApiError, detail } from "../../http/errors";
import { failures, jsonBodyOf, jsonContent, openApiRoute, type RouteDefinition } from "../../http/openapi";
import { schema } from "../../lazy-schema";
import { limiter, loginAddressSubject, loginSubject, tokenSubject } from "../../rate-limit/client";
import examples from "../examples.json";

export const TOKEN_LIFETIME_SECONDS = 7200;

const LoginRequest = schema(() =>
  z
    .object({
      username: z.string().min(1).max(200),
      password: z.string().min(1).max(1024),
    })
    .openapi("LoginRequest"),
);

const LoginResponse = schema(() =>
  z
    .object({
      accessToken: z
        .string()
        .min(30)
        .openapi({ description: "Opaque bearer token; send as `Authorization: Bearer …`" }),
      expiresIn: z
        .literal(TOKEN_LIFETIME_SECONDS)
        .openapi({ type: "integer", description: "Seconds until the token expires: always 7200" }),
    })
    .openapi("LoginResponse"),
);

const route = {
  operationId: "login",
  method: "post",
  path: "/authentication/v1/partner",
  tags: ["Authentication"],
  security: [],
  summary: "Log in and obtain an access token",
  description:
    "Exchanges the partner's user name and password for a bearer token valid for 7200 seconds. Wrong credentials answer 400 `invalid_grant` (with `errors[]`, code INVALID_CREDENTIALS). Failed logins are limited per user name (default 5 in any 15 minutes) and per client address (default 20): beyond that the login answers 429 with `Retry-After`, before any password is checked.",
  request: () => ({ body: jsonBodyOf(LoginRequest(), examples.loginRequest) }),
  responses: () => ({
    200: jsonContent(LoginResponse(), "Token issued", examples.loginResponse, ["Cache-Control"]),
    ...failures({ body: true, session: false, lookup: false, invalid: ["INVALID_CREDENTIALS"] }),
  }),
} satisfies RouteDefinition;

/**
 * The throttles a login attempt is counted against: its user name, and the client's address where the
 * edge tells it (Cloudflare sets CF-Connecting-IP on every request; local runs have none).
 */
async function throttles(env: Env, cfg: Config, username: string, address: string | undefined) {
  const window = cfg.LOGIN_FAILURE_WINDOW_SECONDS;
  return [
    { object: limiter(env, await loginSubject(username)), limit: cfg.LOGIN_MAX_FAILURES, window },
    ...(address
      ? [{ object: limiter(env, loginAddressSubject(address)), limit: cfg.LOGIN_MAX_FAILURES_PER_ADDRESS, window }]
      : []),
  ];
}

export const login = openApiRoute(route, async (c) => {
  const { username, password } = c.req.valid("json");
  const cfg = c.var.config;
  const at = now();
  // Counted before the password is looked at, in one atomic step per throttle: parallel guesses cannot
  // slip between a check and a count. A refused attempt and a successful login give their count back.
  const counted = await throttles(c.env, cfg, username, c.req.header("CF-Connecting-IP"));
  const verdicts = await Promise.all(counted.map((t) => t.object.attempt(at, t.limit, t.window)));
  const release = () =>
    Promise.all(verdicts.map((v, i) => (v.allowed ? counted[i]!.object.release(v.ticket) : undefined)));
  const refused = verdicts.flatMap((v) => (v.allowed ? [] : [v.retryAfter]));
  if (refused.length > 0) {
    await release();
    throw new ApiError("rate_limit_exceeded", "too many failed logins; try again later", undefined, {
      "Retry-After": String(Math.max(...refused)),
    });
  }

  const db = database(c.env);
  const partner = await partnerByUsername(db, username);
  // Verify against a decoy when the user is unknown, so timing does not reveal which user names exist.
  const valid = await verifyPassword(password, partner?.passwordHash ?? DECOY_PASSWORD_HASH, cfg.AUTH_PEPPER);
  if (!partner || !valid) {
    throw new ApiError("invalid_grant", "the user name or password is wrong", [
      detail("INVALID_CREDENTIALS", "the user name or password is wrong"),
    ]);
  }
  await release();

  const accessToken = randomSecret(32);
  const tokenHash = await sha256Hex(accessToken);
  const expiresAt = at + TOKEN_LIFETIME_SECONDS * 1000;
  await Promise.all([
    recordAccessToken(db, { tokenHash, partnerId: partner.id, expiresAt, createdAt: at }),
    limiter(c.env, tokenSubject(tokenHash)).openSession({ partnerId: partner.id, expiresAt }),
  ]);
  c.header("Cache-Control", "no-store");
  return c.json({ accessToken, expiresIn: TOKEN_LIFETIME_SECONDS } as const, 200);
});
