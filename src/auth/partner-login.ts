/**
 * Checking a partner's user name and password, for the API's login and the console's sign-in alike:
 * one throttle, so that guesses through either count against the same limits.
 */
import type { Config, Env } from "../config";
import { database } from "../db/client";
import { partnerByUsername } from "../db/partners";
import type { WireProfile } from "../domain/wire-profile";
import { limiter, loginAddressSubject, loginSubject } from "../rate-limit/client";
import { DECOY_PASSWORD_HASH, verifyPassword } from "./crypto";

/** The longest user name and password a login takes (a password is hashed whole: its work stays bounded). */
export const MAX_USERNAME_LENGTH = 200;
export const MAX_PASSWORD_LENGTH = 1024;

export type LoginCheck =
  | { outcome: "valid"; partnerId: string; wireProfile: WireProfile; shard: number }
  | { outcome: "wrong" }
  /** Too many failed attempts for the user name or the address: refused before any password check. */
  | { outcome: "throttled"; retryAfter: number };

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

export async function checkLogin(
  env: Env,
  cfg: Config,
  attempt: { username: string; password: string; address: string | undefined },
  at: number,
): Promise<LoginCheck> {
  // Counted before the password is looked at, in one atomic step per throttle: parallel guesses cannot
  // slip between a check and a count. A refused attempt and a successful login give their count back.
  const counted = await throttles(env, cfg, attempt.username, attempt.address);
  const verdicts = await Promise.all(counted.map((t) => t.object.attempt(at, t.limit, t.window)));
  const release = () =>
    Promise.all(verdicts.map((v, i) => (v.allowed ? counted[i]!.object.release(v.ticket) : undefined)));
  const refused = verdicts.flatMap((v) => (v.allowed ? [] : [v.retryAfter]));
  if (refused.length > 0) {
    await release();
    return { outcome: "throttled", retryAfter: Math.max(...refused) };
  }

  const partner = await partnerByUsername(database(env), attempt.username);
  // Verify against a decoy when the user is unknown, so timing does not reveal which user names exist.
  const valid = await verifyPassword(attempt.password, partner?.passwordHash ?? DECOY_PASSWORD_HASH, cfg.AUTH_PEPPER);
  if (!partner || !valid) return { outcome: "wrong" };
  await release();
  return { outcome: "valid", partnerId: partner.id, wireProfile: partner.wireProfile, shard: partner.shard };
}
