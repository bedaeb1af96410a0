/** Partners and their access tokens (only the SHA-256 of a token is stored). */
import { eq, inArray, lt, sql } from "drizzle-orm";
import type { Database } from "./client";
import { accessTokens, partners } from "./schema";

export async function partnerByUsername(db: Database, username: string) {
  const row = await db
    .select({ id: partners.id, passwordHash: partners.passwordHash })
    .from(partners)
    .where(eq(partners.username, username))
    .get();
  return row ?? null;
}

export async function recordAccessToken(
  db: Database,
  token: { tokenHash: string; partnerId: string; expiresAt: number; createdAt: number },
): Promise<void> {
  await db.insert(accessTokens).values(token);
}

/** Tokens purged per statement: the sweep's work per round stays small whatever the backlog. */
const PURGE_ROUND = 500;

/**
 * Deletes the records of tokens that expired before `before` (a token lives two hours; its record is
 * kept only to check it while it could be used), a round at a time through the expiry index, at most
 * `rounds` rounds. Answers how many went.
 */
export async function forgetExpiredTokens(db: Database, before: number, rounds = 20): Promise<number> {
  let forgotten = 0;
  for (let round = 0; round < rounds; round++) {
    const gone = await db
      .delete(accessTokens)
      .where(
        inArray(
          accessTokens.tokenHash,
          db
            .select({ tokenHash: accessTokens.tokenHash })
            .from(accessTokens)
            .where(lt(accessTokens.expiresAt, before))
            .limit(PURGE_ROUND),
        ),
      )
      .returning({ tokenHash: accessTokens.tokenHash });
    forgotten += gone.length;
    if (gone.length < PURGE_ROUND) break;
  }
  return forgotten;
}

export async function revokeAccessToken(db: Database, tokenHash: string, at: number): Promise<void> {
  await db.update(accessTokens).set({ revokedAt: at }).where(eq(accessTokens.tokenHash, tokenHash));
}

/**
 * A new signing secret (sealed) for the partner. With `previousUntil` the one it replaces keeps
 * signing until then (an overlap in which receivers switch); without, it stops at once (a revocation).
 */
export async function replaceSigningSecret(
  db: Database,
  where: { partnerId: string } | { username: string },
  sealed: string,
  previousUntil: number | null,
): Promise<boolean> {
  const changed = await db
    .update(partners)
    .set({
      previousSigningSecretCiphertext: previousUntil === null ? null : sql`${partners.signingSecretCiphertext}`,
      previousSigningSecretExpiresAt: previousUntil,
      signingSecretCiphertext: sealed,
    })
    .where("partnerId" in where ? eq(partners.id, where.partnerId) : eq(partners.username, where.username))
    .returning({ id: partners.id });
  return changed.length > 0;
}
