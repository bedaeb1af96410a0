/** Partners and their access tokens (only the SHA-256 of a token is stored). */
import { eq } from "drizzle-orm";
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

export async function revokeAccessToken(db: Database, tokenHash: string, at: number): Promise<void> {
  await db.update(accessTokens).set({ revokedAt: at }).where(eq(accessTokens.tokenHash, tokenHash));
}
