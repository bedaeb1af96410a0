import { and, eq } from "drizzle-orm";
import type { Database } from "./client";
import { applications, documents } from "./schema";

/** A document of the partner's application, with its content (base64); null when there is none. */
export async function findDocument(db: Database, partnerId: string, applicationId: string, documentId: string) {
  const row = await db
    .select({ filename: documents.filename, mimeType: documents.mimeType, content: documents.content })
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
  return row ?? null;
}
