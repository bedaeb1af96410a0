/** Claims and stored answers of `Idempotency-Key` requests (CONTRACT 1). */
import { and, eq, lte, or, sql } from "drizzle-orm";
import type { Database } from "./client";
import { idempotencyKeys } from "./schema";

export type IdempotencyRow = typeof idempotencyKeys.$inferSelect;

export interface Claim {
  partnerId: string;
  key: string;
  target: string;
  requestHash: string;
  at: number;
  leaseUntil: number;
}

/**
 * Claims the key for a request, taking over a row whose 24 hours have passed, or a claim of the same
 * request whose lease ran out before it stored an answer (its runtime died mid-request). True when this
 * request holds the key now.
 */
export async function claimKey(db: Database, claim: Claim, ttlMs: number): Promise<boolean> {
  const fresh = {
    target: claim.target,
    requestHash: claim.requestHash,
    createdAt: claim.at,
    leaseUntil: claim.leaseUntil,
    responseStatus: null,
    responseBody: null,
    responseHeaders: null,
  };
  const claimed = await db
    .insert(idempotencyKeys)
    .values({ partnerId: claim.partnerId, key: claim.key, ...fresh })
    .onConflictDoUpdate({
      target: [idempotencyKeys.partnerId, idempotencyKeys.key],
      set: fresh,
      setWhere: or(
        lte(idempotencyKeys.createdAt, claim.at - ttlMs),
        and(
          sql`${idempotencyKeys.responseStatus} IS NULL`,
          eq(idempotencyKeys.requestHash, claim.requestHash),
          lte(idempotencyKeys.leaseUntil, claim.at),
        ),
      ),
    })
    .returning({ key: idempotencyKeys.key });
  return claimed.length > 0;
}

export async function keyRow(db: Database, partnerId: string, key: string): Promise<IdempotencyRow | null> {
  const row = await db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.partnerId, partnerId), eq(idempotencyKeys.key, key)))
    .get();
  return row ?? null;
}

/** The first answer, kept for replays; its body is sealed by the caller. */
export async function storeAnswer(
  db: Database,
  partnerId: string,
  key: string,
  answer: { status: number; body: string; headers: Record<string, string> },
): Promise<void> {
  await db
    .update(idempotencyKeys)
    .set({
      responseStatus: answer.status,
      responseBody: answer.body,
      responseHeaders: answer.headers,
      leaseUntil: null,
    })
    .where(and(eq(idempotencyKeys.partnerId, partnerId), eq(idempotencyKeys.key, key)));
}

/** A request that failed with a 5xx releases its key, so the client can retry with it. */
export async function releaseKey(db: Database, partnerId: string, key: string): Promise<void> {
  await db.delete(idempotencyKeys).where(and(eq(idempotencyKeys.partnerId, partnerId), eq(idempotencyKeys.key, key)));
}

export async function forgetKeysBefore(db: Database, before: number): Promise<void> {
  await db.delete(idempotencyKeys).where(lte(idempotencyKeys.createdAt, before));
}
