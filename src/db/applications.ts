/**
 * Reading the application aggregate (application, order lines, documents) and the guarded batch every
 * write of it is.
 */
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { ApplicationState, StateReason } from "../domain/application-state";
import type { Line } from "../domain/order-lines";
import { type Database, prepared } from "./client";
import { type ApplicationRow, applications, documents, orderLines, partners } from "./schema";

export interface Aggregate {
  application: ApplicationRow & { state: ApplicationState; stateReason: StateReason };
  lines: Line[];
  documents: { id: string; type: string; filename: string; description: string | null }[];
}

const aggregateQuery = prepared((db) =>
  db.query.applications
    .findFirst({
      where: (a, { and, eq }) =>
        and(eq(a.id, sql.placeholder("applicationId")), eq(a.partnerId, sql.placeholder("partnerId"))),
      with: {
        lines: { orderBy: (l, { asc }) => [asc(l.position), asc(l.id)] },
        documents: {
          columns: { id: true, type: true, filename: true, description: true },
          orderBy: (d, { asc }) => [asc(d.id)],
        },
      },
    })
    .prepare(),
);

/** The application with its lines and documents in one statement; null when absent or another partner's. */
export async function loadAggregate(db: Database, partnerId: string, applicationId: string): Promise<Aggregate | null> {
  const found = await aggregateQuery(db).execute({ applicationId, partnerId });
  if (!found) return null;
  const { lines, documents: docs, ...application } = found;
  return {
    application: application as Aggregate["application"],
    lines: lines as Line[],
    documents: docs,
  };
}

/**
 * The aggregates of a page of applications: their lines and documents in one round trip of two
 * queries, not two per item. A page holds at most 100 ids, which D1's 100 bound parameters admit.
 */
export async function withLinesAndDocuments(db: Database, rows: ApplicationRow[]): Promise<Aggregate[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [lines, docs] = await db.batch([
    db
      .select()
      .from(orderLines)
      .where(inArray(orderLines.applicationId, ids))
      .orderBy(asc(orderLines.applicationId), asc(orderLines.position), asc(orderLines.id)),
    db
      .select({
        applicationId: documents.applicationId,
        id: documents.id,
        type: documents.type,
        filename: documents.filename,
        description: documents.description,
      })
      .from(documents)
      .where(inArray(documents.applicationId, ids))
      .orderBy(asc(documents.applicationId), asc(documents.id)),
  ]);
  const aggregates = new Map<string, Aggregate>(
    rows.map((row) => [row.id, { application: row as Aggregate["application"], lines: [], documents: [] }]),
  );
  for (const line of lines) aggregates.get(line.applicationId)?.lines.push(line as Line);
  for (const { applicationId, ...doc } of docs) aggregates.get(applicationId)?.documents.push(doc);
  return [...aggregates.values()];
}

/** Whether the application exists and is the partner's. */
export async function ownsApplication(db: Database, partnerId: string, applicationId: string): Promise<boolean> {
  const found = await db
    .select({ id: applications.id })
    .from(applications)
    .where(and(eq(applications.id, applicationId), eq(applications.partnerId, partnerId)))
    .get();
  return found !== undefined;
}

/** The partner owning an application, with the name the customer knows them by; null when there is none. */
export async function applicationOwner(
  db: Database,
  applicationId: string,
): Promise<{ partnerId: string; merchantName: string } | null> {
  const owner = await db
    .select({ partnerId: applications.partnerId, merchantName: partners.displayName })
    .from(applications)
    .innerJoin(partners, eq(partners.id, applications.partnerId))
    .where(eq(applications.id, applicationId))
    .get();
  return owner ?? null;
}

/** Raised when another request changed the application between our read and our write. */
export class WriteConflict extends Error {}

/** Executes a write batch; a failed guard means a concurrent write won, reported as WriteConflict. */
export async function commit(db: Database, statements: [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]) {
  try {
    return await db.batch(statements);
  } catch (error) {
    if (isConstraintError(error, "write_guard_ok")) throw new WriteConflict();
    throw error;
  }
}

/** Whether a D1 error (possibly wrapped by Drizzle) is the violation of the named constraint or index. */
export function isConstraintError(error: unknown, name: string): boolean {
  for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) {
    if (String((e as Error).message ?? e).includes(name)) return true;
  }
  return false;
}
