/**
 * Claims and stored answers of `Idempotency-Key` requests (CONTRACT 1). A stored answer counts towards
 * the partner's storage (src/db/storage.ts) until it is forgotten: a partner past its quota cannot
 * claim new keys, since each would store another answer.
 */
import { and, eq, lte, or, sql } from "drizzle-orm";
import type { Database } from "./client";
import { idempotencyKeys, partners } from "./schema";
import { countUsage, QUOTA_CHECK, rowBytes, StorageQuotaExceeded } from "./storage";
import { isConstraintError } from "./write-batch";

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
 * request holds the key now; StorageQuotaExceeded when the partner's usage is past `quota`.
 */
export async function claimKey(db: Database, claim: Claim, ttlMs: number, quota: number): Promise<boolean> {
  const fresh = {
    target: claim.target,
    requestHash: claim.requestHash,
    createdAt: claim.at,
    leaseUntil: claim.leaseUntil,
    responseStatus: null,
    responseBody: null,
    responseHeaders: null,
  };
  const insert = db
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
  try {
    // Counting nothing, the quota's check only asks whether the partner is past it already.
    const { sql: text, params } = insert.toSQL();
    const [, claimed] = await db.$client.batch([
      countUsage(db.$client, claim.partnerId, 0, quota),
      db.$client.prepare(text).bind(...params),
    ]);
    return (claimed?.results ?? []).length > 0;
  } catch (error) {
    if (isConstraintError(error, QUOTA_CHECK)) throw new StorageQuotaExceeded();
    throw error;
  }
}

export async function keyRow(db: Database, partnerId: string, key: string): Promise<IdempotencyRow | null> {
  const row = await db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.partnerId, partnerId), eq(idempotencyKeys.key, key)))
    .get();
  return row ?? null;
}

/**
 * The first answer, kept for replays; its body is sealed by the caller. Counted towards the partner's
 * storage without the quota's check: the work is done, and its answer must be kept.
 */
export async function storeAnswer(
  db: Database,
  partnerId: string,
  key: string,
  answer: { status: number; body: string; headers: Record<string, string> },
): Promise<void> {
  const stored = {
    responseStatus: answer.status,
    responseBody: answer.body,
    responseHeaders: answer.headers,
    leaseUntil: null,
  };
  const bytes = rowBytes({ key, ...stored });
  await db.batch([
    db
      .update(idempotencyKeys)
      .set({ ...stored, storedBytes: bytes })
      .where(and(eq(idempotencyKeys.partnerId, partnerId), eq(idempotencyKeys.key, key))),
    db
      .update(partners)
      .set({ storedBytes: sql`${partners.storedBytes} + ${bytes}` })
      .where(eq(partners.id, partnerId)),
  ]);
}

/** A request that failed with a 5xx releases its key, so the client can retry with it. */
export async function releaseKey(db: Database, partnerId: string, key: string): Promise<void> {
  await db.delete(idempotencyKeys).where(and(eq(idempotencyKeys.partnerId, partnerId), eq(idempotencyKeys.key, key)));
}

/** Forgets the answers stored before `before`, giving their bytes back to each partner's usage. */
export async function forgetKeysBefore(db: Database, before: number): Promise<void> {
  const expired = lte(idempotencyKeys.createdAt, before);
  await db.batch([
    db
      .update(partners)
      .set({
        storedBytes: sql`${partners.storedBytes} - (SELECT COALESCE(SUM(${idempotencyKeys.storedBytes}), 0) FROM ${idempotencyKeys} WHERE ${idempotencyKeys.partnerId} = ${partners.id} AND ${expired})`,
      })
      .where(sql`${partners.id} IN (SELECT ${idempotencyKeys.partnerId} FROM ${idempotencyKeys} WHERE ${expired})`),
    db.delete(idempotencyKeys).where(expired),
  ]);
}
