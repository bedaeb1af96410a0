import { createRoute, z } from "@hono/zod-openapi";
import { DECOY_PASSWORD_HASH, randomSecret, sha256Hex, verifyPassword } from "../../auth/crypto";
import { now } from "../../clock";
import { config } from "../../config";
import { database } from "../../db/client";
import { partnerByUsername, recordAccessToken } from "../../db/partners";
import { ApiError } from "../../http/errors";
import { ErrorSchema, jsonBodyOf, jsonContent, router } from "../../http/openapi";
import { limiter, loginSubject, tokenSubject } from "../../rate-limit/client";

export const TOKEN_LIFETIME_SECONDS = 7200;

const LoginRequest = z
  .object({
    username: z.string().min(1).max(200),
    password: z.string().min(1).max(1024),
  })
  .openapi("LoginRequest");

const LoginResponse = z
  .object({
    accessToken: z.string().min(30).openapi({ description: "Opaque bearer token; send as `Authorization: Bearer …`" }),
    expiresIn: z.literal(TOKEN_LIFETIME_SECONDS).openapi({ description: "Seconds until the token expires" }),
  })
  .openapi("LoginResponse");

const route = createRoute({
  method: "post",
  path: "/authentication/v1/partner",
  tags: ["Authentication"],
  summary: "Log in and obtain an access token",
  description:
    "Exchanges the partner's user name and password for a bearer token valid for 7200 seconds. Wrong credentials answer 400 `invalid_grant`; after repeated failures for one user name (default 5 in 15 minutes) the login answers 429 until the window passes.",
  request: { body: jsonBodyOf(LoginRequest) },
  responses: {
    200: jsonContent(LoginResponse, "Token issued"),
    400: jsonContent(ErrorSchema, "Malformed request, or wrong user name or password (`invalid_grant`)"),
    429: jsonContent(ErrorSchema, "Too many failed logins for this user name, or the address quota is spent"),
  },
});

export const login = router().openapi(route, async (c) => {
  const { username, password } = c.req.valid("json");
  const cfg = config(c.env);
  const at = now();
  const throttle = limiter(c.env, await loginSubject(username));
  const throttled = await throttle.peek(at, cfg.LOGIN_MAX_FAILURES, cfg.LOGIN_FAILURE_WINDOW_SECONDS);
  if (!throttled.allowed) {
    throw new ApiError("rate_limit_exceeded", "too many failed logins; try again later", undefined, {
      "Retry-After": String(throttled.reset),
    });
  }

  const db = database(c.env);
  const partner = await partnerByUsername(db, username);
  // Verify against a decoy when the user is unknown, so timing does not reveal which user names exist.
  const valid = await verifyPassword(password, partner?.passwordHash ?? DECOY_PASSWORD_HASH, cfg.AUTH_PEPPER);
  if (!partner || !valid) {
    await throttle.hit(at, cfg.LOGIN_MAX_FAILURES, cfg.LOGIN_FAILURE_WINDOW_SECONDS);
    throw new ApiError("invalid_grant", "the user name or password is wrong");
  }

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
