/**
 * Each partner's share of the storage every partner shares. A partner's usage is what the rows it
 * adds hold (`rowBytes`): applications with their lines, refunds and documents (with their files, kept
 * in R2: `documentBytes`), and the stored answers
 * of Idempotency-Key requests; it falls when rows go (replaced lines, expired answers). Its audit log is
 * counted apart (`audit_bytes`, ./audit-events.ts: it only grows) and against the same quota. Growth past the
 * partner's quota (its own, or STORAGE_QUOTA_BYTES) is refused whole: D1 has no interactive
 * transactions, so the check is a CHECK constraint on the very UPDATE that counts the growth, inside the
 * write's batch, and a failed check rolls the batch back. Events and delivery attempts are the
 * service's own records and are not counted.
 */
import { jsonBytes } from "../domain/application-size";
import { problem } from "../domain/result";

/** The bytes a row holds as usage counts them: its values as JSON, in UTF-8 (as an application's size). */
export const rowBytes = (row: object): number => jsonBytes(row);

/**
 * The bytes a document holds as usage counts them: its metadata with its file as the partner sent it
 * (base64), as when files were kept in D1. So a partner's quota bounds its files in R2 as it bounds its
 * rows, and its usage is the same wherever the file is: moving a file to R2 changes none.
 */
export const documentBytes = (document: { content: string }): number => rowBytes(document);

/** Raised when a write would take a partner's usage past its quota; nothing of the write landed. */
export class StorageQuotaExceeded extends Error {}

/** How the API answers StorageQuotaExceeded (422). */
export const STORAGE_QUOTA_PROBLEM = problem(
  "STORAGE_QUOTA_EXCEEDED",
  "the partner's storage quota is used up; nothing was stored (an operator can raise the quota)",
);

/**
 * The statement of a write's batch that adds `bytes` (negative when rows go) to the partner's usage.
 * With a `defaultQuota` (what applies unless the partner has a quota of its own), usage that would end
 * above the quota fails the CHECK `partner_storage_quota`, and with it the batch (see `commit`): so does
 * adding 0 bytes to a partner already past it; a shrinking write always passes. Without one (null), the
 * bytes are counted unchecked: for what must be kept once the work is done.
 */
export function countUsage(
  client: D1Database,
  partnerId: string,
  bytes: number,
  defaultQuota: number | null,
): D1PreparedStatement {
  if (defaultQuota === null) {
    return client.prepare("UPDATE partners SET stored_bytes = stored_bytes + ?1 WHERE id = ?2").bind(bytes, partnerId);
  }
  return client
    .prepare(
      `UPDATE partners SET stored_bytes = stored_bytes + ?1,
         within_quota = (?1 < 0 OR stored_bytes + audit_bytes + ?1 <= COALESCE(storage_quota_bytes, ?2)) WHERE id = ?3`,
    )
    .bind(bytes, defaultQuota, partnerId);
}

/** The statement that counts an audit entry's bytes: never refused (the record of work done or refused is kept). */
export const countAuditBytes = (client: D1Database, partnerId: string, bytes: number): D1PreparedStatement =>
  client.prepare("UPDATE partners SET audit_bytes = audit_bytes + ?1 WHERE id = ?2").bind(bytes, partnerId);

/** The CHECK that fails a batch whose growth would pass the quota. */
export const QUOTA_CHECK = "partner_storage_quota";
