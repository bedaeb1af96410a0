/**
 * Reading the application aggregate (application, order lines, documents) through Drizzle: the reads
 * by id as the queries the build makes statements of, the list's page and the sweep's.
 */
import { and, asc, desc, eq, gt, inArray, isNotNull, lte, or, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { ApplicationState, StateReason } from "../domain/application-state";
import type { Line } from "../domain/order-lines";
import type { SettlementFacts } from "../domain/plan";
import { aggregateToWrite } from "./aggregate-row";
import type { Database } from "./client";
import { preparedRelational } from "./compiler";
import { TERMS_COLUMNS } from "./partner-terms";
import { type ApplicationRow, applications, applicationVariableSymbols, partners } from "./schema";

export interface Aggregate {
  application: ApplicationRow & { state: ApplicationState; stateReason: StateReason };
  lines: Line[];
  documents: { id: string; type: string; filename: string; description: string | null }[];
  /** What the operation's settlement entries need (src/domain/plan.ts), read with the rest. */
  settlement: SettlementFacts;
}

/**
 * The application's columns that presenting it reads (src/routes/applications/present.ts). Reads that
 * only present (GET, the list) select these and no more: no filter copies, fingerprint or version
 * through D1, its result conversion and the row mapper (measured in bench/tried.md, "reads select what
 * they present"). Writes read the whole row: their guard needs the version.
 */
const PRESENTED = {
  id: true,
  type: true,
  state: true,
  stateReason: true,
  agreementTermsAndConditions: true,
  customer: true,
  orderDetails: true,
  merchantUrls: true,
  currency: true,
  approvedAmount: true,
  refundedAmount: true,
  cancelReason: true,
  customCancelReason: true,
  expiresAt: true,
  createdAt: true,
  updatedAt: true,
  contentBytes: true,
  // Set while archived (./archive.ts): the rest is then a tombstone's, and the object holds what to present.
  archiveKey: true,
} as const satisfies Partial<Record<keyof ApplicationRow, true>>;

/** The aggregate as reads that present it load it: the application's presented columns only. */
export interface PresentedAggregate extends Omit<Aggregate, "application" | "settlement"> {
  application: Pick<Aggregate["application"], keyof typeof PRESENTED>;
}

/**
 * An application's lines in order (the columns of a domain `Line`: not the application id or the row's
 * times) and its documents (without their content), read with it as JSON subqueries of one statement.
 */
const LINES_AND_DOCUMENTS = {
  lines: {
    columns: { applicationId: false, createdAt: false, updatedAt: false },
    orderBy: (l, { asc }) => [asc(l.position), asc(l.id)],
  },
  documents: {
    columns: { id: true, type: true, filename: true, description: true },
    orderBy: (d, { asc }) => [asc(d.id)],
  },
} satisfies NonNullable<Parameters<Database["query"]["applications"]["findFirst"]>[0]>["with"];

/**
 * What a write reads besides: the application's shipments (which lines each took out) and its partner's
 * terms in force, from which the operation's settlement entries follow (CONTRACT 6b).
 */
const TO_WRITE = {
  ...LINES_AND_DOCUMENTS,
  shipments: { columns: { id: true, lineIds: true }, orderBy: (s, { asc }) => [asc(s.id)] },
  partner: { columns: TERMS_COLUMNS },
} satisfies NonNullable<Parameters<Database["query"]["applications"]["findFirst"]>[0]>["with"];

const byIdAndPartner = {
  where: (a, { and, eq }) =>
    and(eq(a.id, sql.placeholder("applicationId")), eq(a.partnerId, sql.placeholder("partnerId"))),
} satisfies Parameters<Database["query"]["applications"]["findFirst"]>[0];

/**
 * The reads of one application by id, as the Drizzle queries they are: the build makes them statements
 * (src/db/statements.ts) that run without Drizzle (src/db/application-reads.ts), so that the gateway
 * page's cold path loads neither Drizzle nor this module.
 */
export const applicationReads = {
  /** The whole row with its lines, documents, shipments and terms: what a write plans on. */
  aggregate: (db: Database) => db.query.applications.findFirst({ ...byIdAndPartner, with: TO_WRITE }),
  /** What presenting it needs (PRESENTED), with its lines and documents. */
  presented: (db: Database) =>
    db.query.applications.findFirst({ ...byIdAndPartner, columns: PRESENTED, with: LINES_AND_DOCUMENTS }),
  /** The partner's application holding a duplicate fingerprint (create's rare collision); run as `.get()`. */
  fingerprintHolder: (db: Database) =>
    db
      .select({ id: applications.id, createdAt: applications.createdAt })
      .from(applications)
      .where(
        and(
          eq(applications.partnerId, sql.placeholder("partnerId")),
          eq(applications.duplicateFingerprint, sql.placeholder("fingerprint")),
        ),
      ),
  /** The partner owning it, with the name the customer knows them by; run as `.get()`. */
  owner: (db: Database) =>
    db
      .select({ partnerId: applications.partnerId, merchantName: partners.displayName })
      .from(applications)
      .innerJoin(partners, eq(partners.id, applications.partnerId))
      .where(eq(applications.id, sql.placeholder("applicationId"))),
};

/**
 * A page of applications with their lines and documents in one statement (the list's `read`): the
 * keyset query's conditions, order and limit on the same relational query as `applicationReads.presented`,
 * read only as far as `pageBytes` of content goes (the first always, and one more, which says that more
 * follow): an answer then never holds more than its ceiling, nor reads megabytes to make it
 * (src/collections/page.ts drops the one more).
 *
 * The page's ids are chosen by the keyset query in a subquery of its own ("page"), its limit applied
 * first, and the content summed over those rows only, in the page's `order` (a window over the whole
 * list would sort all of it): the page still costs the same however long the list is.
 */
export function applicationsPage(
  db: Database,
  where: SQL,
  orderBy: SQL[],
  limit: number,
  order: readonly { column: SQLiteColumn; descending: boolean }[],
  pageBytes: number,
) {
  const column = (c: SQLiteColumn) => sql`"page".${sql.identifier(c.name)}`;
  const windowOrder = sql.join(
    order.map((k) => sql`${column(k.column)} ${sql.raw(k.descending ? "desc" : "asc")}`),
    sql`, `,
  );
  const selected = sql.join(
    [...new Set([applications.id, applications.contentBytes, ...order.map((k) => k.column)])].map((c) =>
      sql.identifier(c.name),
    ),
    sql`, `,
  );
  const bytes = column(applications.contentBytes);
  const fitting = sql`${applications.id} in (select "id" from (select "page"."id", sum(${bytes}) over (order by ${windowOrder} rows unbounded preceding) - ${bytes} as "before" from (select ${selected} from ${applications} where ${where} order by ${sql.join(orderBy, sql`, `)} limit ${limit}) as "page") where "before" < ${pageBytes})`;
  const query = db.query.applications.findMany({
    where: fitting,
    orderBy,
    limit,
    columns: PRESENTED,
    with: LINES_AND_DOCUMENTS,
  });
  return {
    toSQL: () => query.toSQL(),
    prepare: () => ({ execute: preparedRelational(query) }),
  };
}

export type ApplicationPageRow = NonNullable<Awaited<ReturnType<typeof applicationReads.presented>>>;

/** Where the sweep stands in the due applications: the last one it took. */
export interface DueCursor {
  nextDueAt: number;
  id: string;
}

/**
 * Up to `limit` applications with something due at `at`, after `cursor`, in the order they fell due:
 * through the due index (next_due_at, id), never a scan, however many applications there are.
 */
export async function dueApplications(db: Database, at: number, cursor: DueCursor | null, limit: number) {
  return await dueQuery(db, at, cursor, limit);
}

/** The statement of `dueApplications`, unrun (its test reads the plan). */
export function dueQuery(db: Database, at: number, cursor: DueCursor | null, limit: number) {
  return db
    .select({ id: applications.id, partnerId: applications.partnerId, nextDueAt: applications.nextDueAt })
    .from(applications)
    .where(
      and(
        isNotNull(applications.nextDueAt),
        lte(applications.nextDueAt, at),
        cursor
          ? or(
              gt(applications.nextDueAt, cursor.nextDueAt),
              and(eq(applications.nextDueAt, cursor.nextDueAt), gt(applications.id, cursor.id)),
            )
          : undefined,
      ),
    )
    .orderBy(asc(applications.nextDueAt), asc(applications.id))
    .limit(limit);
}

/** Several applications as a write reads them (the sweep's), in one statement. */
export async function loadAggregates(db: Database, ids: readonly string[]): Promise<Aggregate[]> {
  if (ids.length === 0) return [];
  const rows = await db.query.applications.findMany({ where: (a) => inArray(a.id, [...ids]), with: TO_WRITE });
  return rows.map(aggregateToWrite);
}

/**
 * The partner's application whose order is the one asked for: every criterion given must match (its
 * order number, one of its variable symbols, its id); the latest created when several do (an order
 * number reused after a cancel). One statement, through the partner's indexes and the symbols' lookup.
 */
export async function findOrder(
  db: Database,
  partnerId: string,
  by: { orderNumber?: string | undefined; variableSymbol?: string | undefined; applicationId?: string | undefined },
): Promise<ApplicationPageRow | undefined> {
  return db.query.applications.findFirst({
    where: and(
      eq(applications.partnerId, partnerId),
      by.orderNumber === undefined ? undefined : eq(applications.orderNumber, by.orderNumber),
      by.applicationId === undefined ? undefined : eq(applications.id, by.applicationId),
      by.variableSymbol === undefined
        ? undefined
        : // Named bare: the relational query qualifies the table's columns with the outer query's alias.
          sql`${applications.id} in (select "application_id" from ${applicationVariableSymbols} where "partner_id" = ${partnerId} and "variable_symbol" = ${by.variableSymbol})`,
    ),
    orderBy: [desc(applications.createdAt), desc(applications.id)],
    columns: PRESENTED,
    with: LINES_AND_DOCUMENTS,
  });
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
