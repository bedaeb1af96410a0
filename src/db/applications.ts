/**
 * Reading the application aggregate (application, order lines, documents) and the guarded batch every
 * write of it is.
 */
import { and, eq, type SQL, sql } from "drizzle-orm";
import type { ApplicationState, StateReason } from "../domain/application-state";
import type { Line } from "../domain/order-lines";
import { type Database, prepared, preparedRelational } from "./client";
import { type ApplicationRow, applications, partners } from "./schema";

export interface Aggregate {
  application: ApplicationRow & { state: ApplicationState; stateReason: StateReason };
  lines: Line[];
  documents: { id: string; type: string; filename: string; description: string | null }[];
}

/** An application's lines in order and its documents, read with it as JSON subqueries of one statement. */
const LINES_AND_DOCUMENTS = {
  lines: { orderBy: (l, { asc }) => [asc(l.position), asc(l.id)] },
  documents: {
    columns: { id: true, type: true, filename: true, description: true },
    orderBy: (d, { asc }) => [asc(d.id)],
  },
} satisfies NonNullable<Parameters<Database["query"]["applications"]["findFirst"]>[0]>["with"];

const aggregateQuery = prepared((db) =>
  preparedRelational(
    db.query.applications.findFirst({
      where: (a, { and, eq }) =>
        and(eq(a.id, sql.placeholder("applicationId")), eq(a.partnerId, sql.placeholder("partnerId"))),
      with: LINES_AND_DOCUMENTS,
    }),
  ),
);

type Found = NonNullable<Awaited<ReturnType<ReturnType<typeof aggregateQuery>>>>;

/** The application with its lines and documents as read in one statement → the aggregate. */
export function aggregateOf({ lines, documents: docs, ...application }: Found): Aggregate {
  return { application: application as Aggregate["application"], lines: lines as Line[], documents: docs };
}

/** The application with its lines and documents in one statement; null when absent or another partner's. */
export async function loadAggregate(db: Database, partnerId: string, applicationId: string): Promise<Aggregate | null> {
  const found = await aggregateQuery(db)({ applicationId, partnerId });
  return found ? aggregateOf(found) : null;
}

/**
 * A page of applications with their lines and documents in one statement (the list's `read`): the
 * keyset query's conditions, order and limit on the same relational query as `loadAggregate`.
 */
export function applicationsPage(db: Database, where: SQL, orderBy: SQL[], limit: number) {
  const query = db.query.applications.findMany({ where, orderBy, limit, with: LINES_AND_DOCUMENTS });
  return {
    toSQL: () => query.toSQL(),
    prepare: () => ({ execute: preparedRelational(query) }),
  };
}

export type ApplicationPageRow = Found;

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
export async function commit(db: Database, statements: D1PreparedStatement[]) {
  try {
    return await db.$client.batch(statements);
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
