/**
 * A document's file lives in R2 (the DOCUMENTS bucket), its metadata in D1 (`documents`). D1 has no
 * transaction with R2, so the order is fixed here, and it is what keeps the two in step:
 * 1. the upload is recorded in D1 (`document_uploads`), then the file is put under a key naming the
 *    partner, the application and the document id the plan made;
 * 2. the plan's batch writes the row naming that key, and deletes the upload's record, guarded: the
 *    batch fails when the record was given up (below), so no row can land once its file may be gone;
 * 3. a batch refused (a concurrent write won, the quota) deletes the file and its record at once. A
 *    failure whose outcome is unknown (the batch may have landed) leaves both: the cron collects them.
 * The cron collects a record older than an hour (its write ended long ago): it gives it up first, then
 * deletes the file, then the record, so a run that stops half-way leaves a record the next run finishes.
 * A row therefore never names a missing file, and a file no row names is never served (every download
 * starts from the row) and is found by its record.
 */
import { fromBase64 } from "../auth/crypto";
import { log } from "../log";
import { StorageQuotaExceeded } from "./storage";
import { WRITE_GUARD, WriteConflict } from "./write-batch";

/** Where a document's file is kept: one object per document, under its partner and application. */
export const documentFileKey = (partnerId: string, applicationId: string, documentId: string): string =>
  `documents/${partnerId}/${applicationId}/${documentId}`;

/** A file to keep, and the key it is kept under. */
export interface DocumentFile {
  key: string;
  /** The file as it was sent, base64. */
  base64: string;
}

/** How long an upload's write may take before the cron gives its file up: far beyond any request. */
export const ABANDONED_AFTER_MS = 3600_000;

/** Uploads the cron gives up per run (one R2 call deletes them all). */
export const COLLECTED_PER_RUN = 100;

/**
 * Puts the file, then runs `write` with the statements its batch must hold (the record's guarded
 * delete): the file is kept exactly when the write lands. A write refused whole takes the file back.
 */
export async function keepingFile<T>(
  client: D1Database,
  files: R2Bucket,
  file: DocumentFile,
  at: number,
  write: (recorded: D1PreparedStatement[]) => Promise<T>,
): Promise<T> {
  await client
    .prepare("INSERT INTO document_uploads (file_key, started_at, abandoned) VALUES (?1, ?2, 0)")
    .bind(file.key, at)
    .run();
  await files.put(file.key, fromBase64(file.base64));
  try {
    return await write([
      client.prepare("DELETE FROM document_uploads WHERE file_key = ?1 AND abandoned = 0").bind(file.key),
      client.prepare(WRITE_GUARD),
    ]);
  } catch (error) {
    if (error instanceof WriteConflict || error instanceof StorageQuotaExceeded) await discard(client, files, file.key);
    else log("warn", "document file kept without its row until the cron collects it", { fileKey: file.key });
    throw error;
  }
}

/** A refused write's file and record, deleted; whatever fails here is left to the cron. */
async function discard(client: D1Database, files: R2Bucket, key: string): Promise<void> {
  try {
    await files.delete(key);
    await client.prepare("DELETE FROM document_uploads WHERE file_key = ?1").bind(key).run();
  } catch {
    log("warn", "document file of a refused write not deleted; the cron collects it", { fileKey: key });
  }
}

/**
 * The cron's collection of files whose row never landed: the uploads older than ABANDONED_AFTER_MS
 * (at most COLLECTED_PER_RUN), given up, their files deleted, then their records. Answers how many.
 */
export async function collectAbandonedUploads(client: D1Database, files: R2Bucket, at: number): Promise<number> {
  const { results } = await client
    .prepare(
      `UPDATE document_uploads SET abandoned = 1 WHERE file_key IN (
         SELECT file_key FROM document_uploads WHERE started_at < ?1 ORDER BY started_at LIMIT ?2)
       RETURNING file_key AS key`,
    )
    .bind(at - ABANDONED_AFTER_MS, COLLECTED_PER_RUN)
    .run<{ key: string }>();
  const keys = results.map((r) => r.key);
  if (keys.length === 0) return 0;
  await files.delete(keys);
  await client
    .prepare("DELETE FROM document_uploads WHERE abandoned = 1 AND file_key IN (SELECT value FROM json_each(?1))")
    .bind(JSON.stringify(keys))
    .run();
  return keys.length;
}

/**
 * The file of a document as its download answers it: streamed from R2, or decoded from the row while
 * its file is still there (kept before files went to R2, and not moved yet).
 */
export async function documentBody(
  files: R2Bucket,
  row: { content: string; fileKey: string | null },
): Promise<ReadableStream | Uint8Array<ArrayBuffer>> {
  if (row.fileKey === null) return fromBase64(row.content);
  const object = await files.get(row.fileKey);
  // Never expected: a row is written only after its file, and no file a row names is ever deleted.
  if (!object) throw new Error(`document file ${row.fileKey} is missing from the DOCUMENTS bucket`);
  return object.body;
}
