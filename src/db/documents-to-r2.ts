/**
 * Moving the files kept in D1 before files went to R2 (base64 in `documents.content`, `file_key` NULL)
 * into the DOCUMENTS bucket: a task of the cron (src/scheduled.ts), beside the requests being served.
 *
 * One document at a time: its row is read, its file put under its key, then one guarded update makes the
 * row name the key and drop its content, if the row still holds it. The partner's usage stays as it was
 * (./storage.ts, documentBytes). A download that read the row before that update serves the content it
 * read; one after it finds the object, put before. A run that stops between the put and the update
 * leaves the row as it was, and the next run puts the same bytes under the same key again; a row moved
 * is never read again. So it can stop anywhere, run beside another run, and be run again.
 */
import { fromBase64 } from "../auth/crypto";
import { documentFileKey } from "./document-files";

/**
 * Documents moved per run: each is three calls (read, put, update), so a run stays well within the
 * calls one invocation may make beside the cron's other tasks. 50 every five minutes is 14,400 a day.
 */
export const MOVED_PER_RUN = 50;

export interface MoveRun {
  moved: number;
  /** Files are left in D1 for the next run. */
  more: boolean;
}

/** The documents whose file is still in D1, oldest first: through their partial index (schema: documents_in_d1_idx). */
export const FILES_IN_D1 = "SELECT id FROM documents WHERE file_key IS NULL ORDER BY id LIMIT ?1";

/** Moves up to `limit` documents' files from D1 to R2, oldest first. */
export async function moveDocumentsToR2(client: D1Database, files: R2Bucket, limit = MOVED_PER_RUN): Promise<MoveRun> {
  const { results } = await client
    .prepare(FILES_IN_D1)
    .bind(limit + 1)
    .run<{ id: string }>();
  let moved = 0;
  for (const { id } of results.slice(0, limit)) {
    if (await moveDocument(client, files, id)) moved++;
  }
  return { moved, more: results.length > limit };
}

/** Moves one document's file; false when it was moved already (by a run beside this one). */
async function moveDocument(client: D1Database, files: R2Bucket, id: string): Promise<boolean> {
  const found = await client
    .prepare(
      `SELECT d.application_id AS applicationId, a.partner_id AS partnerId, d.content
       FROM documents d JOIN applications a ON a.id = d.application_id
       WHERE d.id = ?1 AND d.file_key IS NULL`,
    )
    .bind(id)
    .first<{ applicationId: string; partnerId: string; content: string }>();
  if (!found) return false;
  const fileKey = documentFileKey(found.partnerId, found.applicationId, id);
  await files.put(fileKey, fromBase64(found.content));
  const { meta } = await client
    .prepare("UPDATE documents SET file_key = ?1, content = '' WHERE id = ?2 AND file_key IS NULL")
    .bind(fileKey, id)
    .run();
  return meta.changes === 1;
}
