import { failures, jsonBodyOf, jsonContent, openApiRoute, type RouteDefinition } from "../../api";
import { randomSecret, sha256Hex } from "../../auth/crypto";
import { checkLogin, MAX_PASSWORD_LENGTH, MAX_USERNAME_LENGTH } from "../../auth/partner-login";
import { now } from "../../clock";
import { directoryHandle } from "../../db/handle";
import { recordAccessToken } from "../../db/partners";
import { ApiError, detail } from "../../http/errors";
import { schema, z } from "../../lazy-schema";
import { limiter, tokenSubject } from "../../rate-limit/client";
import examples from "../examples.json";

export const TOKEN_LIFETIME_SECONDS = 7200;

const LoginRequest = schema(() =>
  z
    .object({
      username: z.string().min(1).max(MAX_USERNAME_LENGTH),
      password: z.string().min(1).max(MAX_PASSWORD_LENGTH),
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

export const login = openApiRoute(route, async (c) => {
  const { username, password } = c.req.valid("json");
  const at = now();
  const check = await checkLogin(
    c.env,
    c.var.config,
    { username, password, address: c.req.header("CF-Connecting-IP") },
    at,
  );
  if (check.outcome === "throttled") {
    throw new ApiError("rate_limit_exceeded", "too many failed logins; try again later", undefined, {
      "Retry-After": String(check.retryAfter),
    });
  }
  if (check.outcome === "wrong") {
    throw new ApiError("invalid_grant", "the user name or password is wrong", [
      detail("INVALID_CREDENTIALS", "the user name or password is wrong"),
    ]);
  }

  const accessToken = randomSecret(32);
  const tokenHash = await sha256Hex(accessToken);
  const expiresAt = at + TOKEN_LIFETIME_SECONDS * 1000;
  await Promise.all([
    recordAccessToken(await directoryHandle(c.env).orm(), {
      tokenHash,
      partnerId: check.partnerId,
      expiresAt,
      createdAt: at,
    }),
    limiter(c.env, tokenSubject(tokenHash)).openSession({
      partnerId: check.partnerId,
      expiresAt,
      wireProfile: check.wireProfile,
      shard: check.shard,
    }),
  ]);
  c.header("Cache-Control", "no-store");
  return c.json({ accessToken, expiresIn: TOKEN_LIFETIME_SECONDS } as const, 200);
});
