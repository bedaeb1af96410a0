/**
 * Claims and stored answers of `Idempotency-Key` requests (CONTRACT 1). A stored answer counts towards
 * the partner's storage (src/db/storage.ts) until it is forgotten. Its size is known only once the work
 * is done, and then it must be kept, so a claim reserves room for the largest answer there can be
 * (ANSWER_RESERVATION), checked against the quota in the claim's own batch: parallel requests at the
 * quota's edge cannot together store past it. Storing the answer replaces the reservation by what it
 * holds; a released claim gives it back.
 */
import { and, eq, lte, or, sql } from "drizzle-orm";
import { MAX_ANSWER_BYTES } from "../domain/application-size";
import type { Database } from "./client";
import { idempotencyKeys, partners } from "./schema";
import { QUOTA_CHECK, rowBytes, StorageQuotaExceeded } from "./storage";
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
 * What a claim reserves of the partner's storage: the stored form of the largest answer (an answer is at
 * most MAX_ANSWER_BYTES, sealed as base64 of its ciphertext, with its headers and key).
 */
export const ANSWER_RESERVATION = Math.ceil((MAX_ANSWER_BYTES * 4) / 3) + 4096;

/**
 * Claims the key for a request, taking over a row whose 24 hours have passed, or a claim of the same
 * request whose lease ran out before it stored an answer (its runtime died mid-request). In one batch:
 * the row taken over gives back what it held, the claim is written, and (only if it was) its
 * reservation is counted, checked against the quota. True when this request holds the key now;
 * StorageQuotaExceeded (nothing claimed) when the reservation would take the partner past `quota`.
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
    storedBytes: ANSWER_RESERVATION,
  };
  const mine = and(eq(idempotencyKeys.partnerId, claim.partnerId), eq(idempotencyKeys.key, claim.key));
  const takenOver = or(
    lte(idempotencyKeys.createdAt, claim.at - ttlMs),
    and(
      sql`${idempotencyKeys.responseStatus} IS NULL`,
      eq(idempotencyKeys.requestHash, claim.requestHash),
      lte(idempotencyKeys.leaseUntil, claim.at),
    ),
  );
  const giveBack = db
    .update(partners)
    .set({
      storedBytes: sql`${partners.storedBytes} - COALESCE((SELECT ${idempotencyKeys.storedBytes} FROM ${idempotencyKeys} WHERE ${and(mine, takenOver)}), 0)`,
    })
    .where(eq(partners.id, claim.partnerId));
  const insert = db
    .insert(idempotencyKeys)
    .values({ partnerId: claim.partnerId, key: claim.key, ...fresh })
    .onConflictDoUpdate({ target: [idempotencyKeys.partnerId, idempotencyKeys.key], set: fresh, setWhere: takenOver })
    .returning({ key: idempotencyKeys.key });
  // changes(): the claim's own, so a request that found the key held reserves nothing.
  const reserve = db.$client
    .prepare(
      `UPDATE partners SET stored_bytes = stored_bytes + ?1,
         within_quota = (stored_bytes + audit_bytes + ?1 <= COALESCE(storage_quota_bytes, ?2)) WHERE id = ?3 AND changes() = 1`,
    )
    .bind(ANSWER_RESERVATION, quota, claim.partnerId);
  try {
    const bound = (query: { toSQL(): { sql: string; params: unknown[] } }) => {
      const { sql: text, params } = query.toSQL();
      return db.$client.prepare(text).bind(...params);
    };
    const [, claimed] = await db.$client.batch([bound(giveBack), bound(insert), reserve]);
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
 * The first answer, kept for replays; its body is sealed by the caller. It takes the place of the
 * claim's reservation in the partner's usage (no larger: an answer is at most MAX_ANSWER_BYTES), without
 * the quota's check: the work is done, and its answer must be kept.
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
  // The reservation the row holds is read before the row is updated: one batch, in order.
  await db.batch([
    db
      .update(partners)
      .set({
        storedBytes: sql`${partners.storedBytes} + ${bytes} - (SELECT ${idempotencyKeys.storedBytes} FROM ${idempotencyKeys} WHERE ${and(eq(idempotencyKeys.partnerId, partnerId), eq(idempotencyKeys.key, key))})`,
      })
      .where(eq(partners.id, partnerId)),
    db
      .update(idempotencyKeys)
      .set({ ...stored, storedBytes: bytes })
      .where(and(eq(idempotencyKeys.partnerId, partnerId), eq(idempotencyKeys.key, key))),
  ]);
}

/** A request that failed with a 5xx releases its key (and its reservation), so the client can retry with it. */
export async function releaseKey(db: Database, partnerId: string, key: string): Promise<void> {
  const mine = and(eq(idempotencyKeys.partnerId, partnerId), eq(idempotencyKeys.key, key));
  await db.batch([
    db
      .update(partners)
      .set({
        storedBytes: sql`${partners.storedBytes} - COALESCE((SELECT ${idempotencyKeys.storedBytes} FROM ${idempotencyKeys} WHERE ${mine}), 0)`,
      })
      .where(eq(partners.id, partnerId)),
    db.delete(idempotencyKeys).where(mine),
  ]);
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
