import { and, eq } from "drizzle-orm";
import type { Database } from "./client";
import { documentBody } from "./document-files";
import { applications, documents } from "./schema";

/**
 * A document of the partner's application as its download answers it (API and console alike): its name,
 * its media type and its file, streamed from R2 (./document-files.ts); null when there is none.
 */
export async function openDocument(
  db: Database,
  files: R2Bucket,
  partnerId: string,
  applicationId: string,
  documentId: string,
): Promise<{ filename: string; mimeType: string; body: ReadableStream | Uint8Array<ArrayBuffer> } | null> {
  const row = await db
    .select({
      filename: documents.filename,
      mimeType: documents.mimeType,
      content: documents.content,
      fileKey: documents.fileKey,
    })
    .from(documents)
    .innerJoin(applications, eq(applications.id, documents.applicationId))
    .where(
      and(
        eq(documents.id, documentId),
        eq(documents.applicationId, applicationId),
        eq(applications.partnerId, partnerId),
      ),
    )
    .get();
  if (!row) return null;
  return { filename: row.filename, mimeType: row.mimeType, body: await documentBody(files, row) };
}
