import { and, eq } from "drizzle-orm";
import { ApiError } from "../http/errors";
import type { Database } from "./client";
import { applications } from "./schema";

/** 404 unless the application exists and is the partner's (never 403: existence is not revealed). */
export async function assertOwnApplication(db: Database, partnerId: string, applicationId: string): Promise<void> {
  const found = await db
    .select({ id: applications.id })
    .from(applications)
    .where(and(eq(applications.id, applicationId), eq(applications.partnerId, partnerId)))
    .get();
  if (!found) throw ApiError.notFound("application");
}
