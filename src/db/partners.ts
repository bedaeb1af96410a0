/** Partners and their access tokens (only the SHA-256 of a token is stored). */
import { and, eq, inArray, isNull, lt } from "drizzle-orm";
import type { PartnerTerms } from "../domain/partner-terms";
import { type SigningSecrets, signingSecrets } from "../domain/signing-secrets";
import type { Database } from "./client";
import { TERMS_COLUMNS, termsOf } from "./partner-terms";
import { accessTokens, partners } from "./schema";

/** What logging in reads of a partner, in the directory (src/db/shards.ts): its password, shard and wire profile. */
export async function partnerByUsername(db: Database, username: string) {
  const row = await db
    .select({
      id: partners.id,
      passwordHash: partners.passwordHash,
      wireProfile: partners.wireProfile,
      shard: partners.shard,
    })
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

/** The partner's signing secrets (sealed), as the rotation rules see them; null when there is no such partner. */
export async function signingSecretsOf(db: Database, partnerId: string): Promise<SigningSecrets | null> {
  const row = await db
    .select({
      current: partners.signingSecretCiphertext,
      previous: partners.previousSigningSecretCiphertext,
      previousUntil: partners.previousSigningSecretExpiresAt,
      older: partners.olderSigningSecretCiphertext,
      olderUntil: partners.olderSigningSecretExpiresAt,
    })
    .from(partners)
    .where(eq(partners.id, partnerId))
    .get();
  return row ? signingSecrets(row) : null;
}

/**
 * Stores the partner's secrets as a rotation left them, if the current one is still `before`'s: a
 * concurrent rotation won otherwise (false), and this one is planned again on what it left.
 */
export async function storeSigningSecrets(
  db: Database,
  partnerId: string,
  before: SigningSecrets,
  after: SigningSecrets,
): Promise<boolean> {
  const changed = await db
    .update(partners)
    .set({
      signingSecretCiphertext: after.current,
      previousSigningSecretCiphertext: after.previous?.sealed ?? null,
      previousSigningSecretExpiresAt: after.previous?.expiresAt ?? null,
      olderSigningSecretCiphertext: after.older?.sealed ?? null,
      olderSigningSecretExpiresAt: after.older?.expiresAt ?? null,
    })
    .where(
      and(
        eq(partners.id, partnerId),
        before.current === null
          ? isNull(partners.signingSecretCiphertext)
          : eq(partners.signingSecretCiphertext, before.current),
      ),
    )
    .returning({ id: partners.id });
  return changed.length > 0;
}

/** The partner's settlement terms in force; undefined when there is no such partner. */
export async function partnerTerms(db: Database, partnerId: string): Promise<PartnerTerms | undefined> {
  const row = await db.query.partners.findFirst({ columns: TERMS_COLUMNS, where: eq(partners.id, partnerId) });
  return row && termsOf(row);
}
