/**
 * The partner's notification signing secrets through rotations (CONTRACT 6). Pure: no HTTP, no SQL.
 *
 * A rotation makes a new secret the current one; the one it replaces goes on signing beside it for the
 * overlap, so the partner's receivers can switch at their own pace. A secret whose overlap still runs
 * keeps it to its end, also through a second rotation: cutting it would break the receivers that still
 * hold it (they verify any one signature of several). At most two earlier secrets sign at once, so a
 * notification carries at most three signatures: a rotation that would cut one whose overlap runs is
 * refused, unless `force` asks to cut the oldest (a secret that leaked).
 */
import { ok, problem, type Result, refused } from "./result";

/** An earlier secret (sealed) and when it stops signing. */
export interface EarlierSecret {
  sealed: string;
  expiresAt: number;
}

export interface SigningSecrets {
  /** Null for partners from before signing secrets: only the legacy signature then. */
  current: string | null;
  /** The secret the last rotation replaced, and the one before it, while their overlaps run. */
  previous: EarlierSecret | null;
  older: EarlierSecret | null;
}

/** The secrets as a partner's record holds them (sealed, with the ends of their overlaps). */
export interface StoredSecrets {
  current: string | null;
  previous: string | null;
  previousUntil: number | null;
  older: string | null;
  olderUntil: number | null;
}

export function signingSecrets(stored: StoredSecrets): SigningSecrets {
  const earlier = (sealed: string | null, expiresAt: number | null) =>
    sealed !== null && expiresAt !== null ? { sealed, expiresAt } : null;
  return {
    current: stored.current,
    previous: earlier(stored.previous, stored.previousUntil),
    older: earlier(stored.older, stored.olderUntil),
  };
}

const running = (secret: EarlierSecret | null, at: number) =>
  secret !== null && secret.expiresAt > at ? secret : null;

/** The sealed secrets that sign a notification at `at`: the current one, then each earlier one still running. */
export function signingNow(secrets: SigningSecrets, at: number): string[] {
  return [secrets.current, running(secrets.previous, at)?.sealed, running(secrets.older, at)?.sealed].filter(
    (s): s is string => typeof s === "string",
  );
}

export function planRotation(
  secrets: SigningSecrets,
  request: { sealed: string; overlapMs: number; force: boolean },
  at: number,
): Result<SigningSecrets> {
  const earlier = [running(secrets.previous, at), running(secrets.older, at)].filter(
    (s): s is EarlierSecret => s !== null,
  );
  const replaced = secrets.current === null ? null : { sealed: secrets.current, expiresAt: at + request.overlapMs };
  if (replaced && earlier.length === 2 && !request.force) {
    const until = Math.min(earlier[0]!.expiresAt, earlier[1]!.expiresAt);
    return refused(
      problem(
        "ROTATION_LIMIT_REACHED",
        `two earlier secrets still sign (until ${new Date(until).toISOString()} the sooner one): rotating now would cut one your receivers may hold; rotate after that, or send {"force": true} to stop the oldest now`,
        "force",
      ),
    );
  }
  // Newest first; when forced, the oldest of three running secrets is the one that goes.
  const kept = [...(replaced ? [replaced] : []), ...earlier.sort((a, b) => b.expiresAt - a.expiresAt)].slice(0, 2);
  return ok({ current: request.sealed, previous: kept[0] ?? null, older: kept[1] ?? null });
}
