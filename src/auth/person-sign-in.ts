/**
 * Checking a person's console sign-in: their partner's account name, their e-mail, their password (hashed
 * as partners' are) and a code of their authenticator (RFC 6238, src/domain/totp.ts), each code taken
 * once. Throttled as the partner's login is (src/auth/partner-login.ts): per person (account and e-mail)
 * and per client address, the address's count shared with the API's login, each attempt counted before
 * any check in one atomic step, given back when it succeeds.
 */
import type { Config, Env } from "../config";
import type { Database } from "../db/client";
import { personOfAccount, takeTotpStep } from "../db/people";
import { acceptedTotpStep } from "../domain/totp";
import { limiter, loginAddressSubject } from "../rate-limit/client";
import { DECOY_PASSWORD_HASH, openSecret, sha256Hex, verifyPassword } from "./crypto";

export interface PersonAttempt {
  account: string;
  email: string;
  password: string;
  code: string;
  address: string | null;
}

/** The person an attempt named, when the account has one of that e-mail. */
export interface NamedPerson {
  partnerId: string;
  personId: string;
  email: string;
}

export type PersonCheck =
  | ({ outcome: "valid" } & NamedPerson)
  /** `person` when the attempt named one of the partner's people (the attempt is theirs to see in the log). */
  | { outcome: "wrong"; person: NamedPerson | null; why: "credentials" | "code" | "replayed" }
  | { outcome: "throttled"; retryAfter: number };

const personSubject = async (account: string, email: string) =>
  `console-person-login:${await sha256Hex(`${account.toLowerCase()}\n${email}`)}`;

export async function checkPersonSignIn(
  env: Env,
  cfg: Config,
  db: Database,
  attempt: PersonAttempt,
  at: number,
): Promise<PersonCheck> {
  const window = cfg.LOGIN_FAILURE_WINDOW_SECONDS;
  const counted = [
    { object: limiter(env, await personSubject(attempt.account, attempt.email)), limit: cfg.LOGIN_MAX_FAILURES },
    ...(attempt.address
      ? [{ object: limiter(env, loginAddressSubject(attempt.address)), limit: cfg.LOGIN_MAX_FAILURES_PER_ADDRESS }]
      : []),
  ];
  const verdicts = await Promise.all(counted.map((t) => t.object.attempt(at, t.limit, window)));
  const release = () =>
    Promise.all(verdicts.map((v, i) => (v.allowed ? counted[i]!.object.release(v.ticket) : undefined)));
  const refused = verdicts.flatMap((v) => (v.allowed ? [] : [v.retryAfter]));
  if (refused.length > 0) {
    await release();
    return { outcome: "throttled", retryAfter: Math.max(...refused) };
  }

  const found = await personOfAccount(db, attempt.account, attempt.email);
  const person = found?.person ?? null;
  const named = person ? { partnerId: person.partnerId, personId: person.id, email: person.email } : null;
  // A decoy when there is no such person (or they have not set up): the time does not tell who exists.
  const valid = await verifyPassword(attempt.password, person?.passwordHash ?? DECOY_PASSWORD_HASH, cfg.AUTH_PEPPER);
  if (!person || !valid || person.totpSecretCiphertext === null)
    return { outcome: "wrong", person: named, why: "credentials" };
  const secret = await openSecret(person.totpSecretCiphertext, cfg.AUTH_PEPPER, "totp-secret");
  const step = acceptedTotpStep(secret, attempt.code, at, person.totpLastStep);
  if (step === null) {
    // A right code of a step already used is a replay, told apart only in the log.
    const replayed = acceptedTotpStep(secret, attempt.code, at, null) !== null;
    return { outcome: "wrong", person: named, why: replayed ? "replayed" : "code" };
  }
  if (!(await takeTotpStep(db, person.id, step))) return { outcome: "wrong", person: named, why: "replayed" };
  await release();
  return { outcome: "valid", ...named! };
}
