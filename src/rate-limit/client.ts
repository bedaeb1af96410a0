import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { sha256Hex } from "../auth/crypto";
import { now } from "../clock";
import type { Env } from "../config";
import type { HonoEnv } from "../env";
import { ApiError } from "../http/errors";
import { logForRequest } from "../http/log";
import { isOverloaded } from "../transient";
import type { HitResult, Quota, SessionRecord } from "./durable-object";

export function limiter(env: Env, subject: string) {
  return env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(subject));
}

/** Object names: a hash of the credential, never the credential itself. */
export const tokenSubject = (tokenHash: string) => `token:${tokenHash}`;
export const addressSubject = (address: string) => `address:${address}`;
export const loginSubject = async (username: string) => `login:${await sha256Hex(username.toLowerCase())}`;
export const loginAddressSubject = (address: string) => `login-address:${address}`;
/** A console person's object: their sessions (src/console/session.ts). */
export const personSubject = (personId: string) => `console-person:${personId}`;

function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1];
}

async function sessionFromDatabase(env: Env, tokenHash: string, at: number): Promise<SessionRecord | null> {
  const row = await env.DB.prepare(
    `SELECT t.partner_id AS partnerId, t.expires_at AS expiresAt, p.wire_profile AS wireProfile, p.shard AS shard
     FROM access_tokens t JOIN partners p ON p.id = t.partner_id
     WHERE t.token_hash = ? AND t.revoked_at IS NULL AND t.expires_at > ?`,
  )
    .bind(tokenHash, at)
    .first<SessionRecord>();
  return row ?? null;
}

/**
 * Counts the request and resolves the bearer token in one Durable Object call: the token's object holds
 * both its quota and its session. Requests without a valid token are counted per client address.
 *
 * When the object cannot be reached the service fails open: the request is served without counting
 * (availability of a payment API matters more than exact quotas for a moment), the token is checked
 * against D1 instead, and a warning is logged. Revocation and expiry are never relaxed. An object that
 * is overloaded is different: its caller is sending more than the object can queue, far past its quota,
 * and serving it unmetered would pass that load on to the D1 primary that every partner shares; it is
 * answered 503 with Retry-After (app.onError) instead.
 */
export const rateLimitAndSession = createMiddleware<HonoEnv>(async (c, next) => {
  const { RATE_LIMIT_REQUESTS: limit, RATE_LIMIT_WINDOW_SECONDS: windowSeconds } = c.var.config;
  const at = now();
  const authorization = c.req.header("Authorization");
  const token = bearerToken(authorization);
  let result: HitResult | undefined;

  if (token) {
    const tokenHash = await sha256Hex(token);
    try {
      result = await limiter(c.env, tokenSubject(tokenHash)).hit(at, limit, windowSeconds, true);
    } catch (error) {
      if (isOverloaded(error)) throw error;
      logForRequest(c, "warn", "rate limiter unreachable, serving unmetered", error);
      const session = await sessionFromDatabase(c.env, tokenHash, at);
      result = { ...unmetered(at, limit, windowSeconds), session, bookmark: null };
    }
    if (result.session) {
      const { partnerId, wireProfile, shard } = result.session;
      c.set("session", { partnerId, tokenHash, wireProfile, shard });
      c.set("bookmark", result.bookmark);
    } else result = undefined;
  }
  if (!c.get("session")) c.set("sessionProblem", authorization === undefined ? "missing" : "invalid");
  if (!result) {
    const address = c.req.header("CF-Connecting-IP") ?? "unknown";
    try {
      result = await limiter(c.env, addressSubject(address)).hit(at, limit, windowSeconds);
    } catch (error) {
      if (isOverloaded(error)) throw error;
      logForRequest(c, "warn", "rate limiter unreachable, serving unmetered", error);
      result = { ...unmetered(at, limit, windowSeconds), session: null, bookmark: null };
    }
  }

  // Set on the context before anything can fail, so every response (errors too) reports the quota.
  setQuotaHeaders(c, result);
  if (!result.allowed) {
    throw new ApiError("rate_limit_exceeded", "call quota exceeded; retry after the period resets", undefined, {
      "Retry-After": String(result.reset),
    });
  }
  await next();
});

export function setQuotaHeaders(c: Context, quota: Quota): void {
  c.header("X-Rate-Limit-Limit", String(quota.limit));
  c.header("X-Rate-Limit-Remaining", String(quota.remaining));
  c.header("X-Rate-Limit-Reset", String(quota.reset));
}

function unmetered(at: number, limit: number, windowSeconds: number): Quota {
  const size = windowSeconds * 1000;
  return { allowed: true, limit, remaining: limit, reset: Math.max(1, Math.ceil((size - (at % size)) / 1000)) };
}
