/**
 * The one write path of an application: a plan of the domain (src/domain/plan.ts) becomes one D1 batch.
 * D1 has no interactive transactions, only atomic batches, so the batch starts with the conditional
 * update of the application (`WHERE version = ?`) and the write_guard statement whose CHECK aborts the
 * whole batch when that update matched nothing: a concurrent write won, and nothing of this one lands.
 */
import { and, eq, getTableColumns, sql } from "drizzle-orm";
import type { CreatePlan } from "../domain/application-operations";
import { withinDuplicateWindow } from "../domain/duplicates";
import type { Line } from "../domain/order-lines";
import { applyPlan, type EventRecord, type Plan } from "../domain/plan";
import { type Aggregate, commit, isConstraintError } from "./applications";
import { type Database, prepared } from "./client";
import { insertRows, updateWhere } from "./compiler";
import { type ApplicationRow, applications, documents, events, type OrderLineRow, orderLines, refunds } from "./schema";
import { countUsage, QUOTA_CHECK, rowBytes, StorageQuotaExceeded } from "./storage";

/** The guard after the application's conditional update: its CHECK fails when that update matched nothing. */
const WRITE_GUARD = "INSERT OR REPLACE INTO write_guard (id, ok) VALUES (1, changes())";
const deleteLines = prepared(
  (db) =>
    db
      .delete(orderLines)
      .where(eq(orderLines.applicationId, sql.placeholder("applicationId")))
      .toSQL().sql,
);

/**
 * Writes the plan, or throws WriteConflict when another write changed the application first, or
 * StorageQuotaExceeded when what it adds would take the partner past `quota` (their own quota, when
 * they have one, wins). Answers the aggregate as written. Every statement is prepared once per shape and
 * bound here (`updateWhere`, `insertRows`): Drizzle's SQL, not built again on every write.
 */
export async function writePlan(
  db: Database,
  current: Aggregate,
  plan: Plan,
  at: number,
  quota: number,
): Promise<Aggregate> {
  await commit(db, planStatements(db, current, plan, at, quota));
  return written(current, plan, at);
}

/**
 * Several applications' plans in one batch (the deadline sweep's): each keeps its own guard, so the
 * batch lands whole or not at all; on a conflict or a quota the caller writes them one by one.
 */
export async function writePlans(
  db: Database,
  writes: readonly { current: Aggregate; plan: Plan }[],
  at: number,
  quota: number,
): Promise<void> {
  await commit(
    db,
    writes.flatMap(({ current, plan }) => planStatements(db, current, plan, at, quota)),
  );
}

/** The aggregate as the plan, once written, leaves it. */
function written(current: Aggregate, plan: Plan, at: number): Aggregate {
  const next = applyPlan(current, plan);
  return {
    application: { ...next.application, version: current.application.version + 1, updatedAt: at },
    lines: [...next.lines],
    // As reads present them: never the content.
    documents: next.documents.map(({ id, type, filename, description }) => ({ id, type, filename, description })),
  };
}

/** The statements that write the plan, led by the application's guarded update. */
function planStatements(db: Database, current: Aggregate, plan: Plan, at: number, quota: number) {
  const app = current.application;
  const added: object[] = [];
  const statements: D1PreparedStatement[] = [
    updateWhere(
      db,
      applications,
      { ...plan.application, version: app.version + 1, updatedAt: at },
      { id: app.id, version: app.version },
    ),
    db.$client.prepare(WRITE_GUARD),
  ];
  if (plan.event) statements.push(insertRows(db, events, [eventRow(app, plan.event)]));
  let removed = 0;
  if (plan.lines?.replace) {
    statements.push(db.$client.prepare(deleteLines(db)).bind(app.id));
    for (const line of current.lines) removed += rowBytes(lineRow(app.id, line, at));
  }
  if (plan.refund) {
    const refund = { ...plan.refund, applicationId: app.id };
    statements.push(insertRows(db, refunds, [refund]));
    added.push(refund);
  }
  if (plan.document) {
    const document = { ...plan.document, applicationId: app.id };
    statements.push(insertRows(db, documents, [document]));
    added.push(document);
  }
  if (plan.lines) {
    const byId = new Map(plan.lines.lines.map((l) => [l.id, l]));
    const created = plan.lines.created.map((id) => lineRow(app.id, byId.get(id)!, at));
    statements.push(
      ...plan.lines.updated.map((id) => updateLine(db, byId.get(id)!, at)),
      ...chunks(created).map((chunk) => insertRows(db, orderLines, chunk)),
    );
    added.push(...created);
  }
  const grown = added.reduce((sum: number, row) => sum + rowBytes(row), 0) - removed;
  if (grown !== 0) statements.push(countUsage(db, app.partnerId, grown, quota));
  return statements;
}

/** The event row of the outbox, due for delivery at once. */
function eventRow(application: { id: string; partnerId: string }, event: EventRecord): typeof events.$inferInsert {
  return { ...event, applicationId: application.id, partnerId: application.partnerId, nextAttemptAt: event.occurredAt };
}

function updateLine(db: Database, line: Line, at: number) {
  const set = {
    quantity: line.quantity,
    totalPriceAmount: line.totalPriceAmount,
    totalVatAmount: line.totalVatAmount,
    state: line.state,
    sentDate: line.sentDate,
    deliveryDate: line.deliveryDate,
    deliveryTrackingNumber: line.deliveryTrackingNumber,
    updatedAt: at,
  };
  return updateWhere(db, orderLines, set, { id: line.id });
}

/** The stored row of a line: the domain's line with its application and times. */
export function lineRow(applicationId: string, line: Line, at: number): OrderLineRow {
  return {
    id: line.id,
    applicationId,
    position: line.position,
    code: line.code,
    ean: line.ean,
    name: line.name,
    type: line.type,
    variant: line.variant,
    producer: line.producer,
    categories: line.categories,
    productUrl: line.productUrl,
    quantity: line.quantity,
    unitPriceAmount: line.unitPriceAmount,
    totalPriceAmount: line.totalPriceAmount,
    unitVatRate: line.unitVatRate,
    unitVatAmount: line.unitVatAmount,
    totalVatRate: line.totalVatRate,
    totalVatAmount: line.totalVatAmount,
    state: line.state,
    sentDate: line.sentDate,
    deliveryDate: line.deliveryDate,
    deliveryTrackingNumber: line.deliveryTrackingNumber,
    createdAt: at,
    updatedAt: at,
  };
}

/** D1 binds at most 100 parameters per statement: new lines go in as few multi-row inserts as fit. */
const LINES_PER_INSERT = Math.floor(100 / Object.keys(getTableColumns(orderLines)).length);

function chunks<T>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += LINES_PER_INSERT) out.push(rows.slice(i, i + LINES_PER_INSERT));
  return out;
}

/** The stored row of a new application: the plan's application with its partner and the columns lists filter on. */
function newApplicationRow(plan: CreatePlan, partnerId: string, fingerprint: string): Aggregate["application"] {
  const app = plan.application;
  return {
    ...app,
    partnerId,
    orderNumber: app.orderDetails.number,
    customerEmail: app.customer.email.toLowerCase(),
    variableSymbols: app.orderDetails.variableSymbols.join(","),
    approvedAmount: null,
    refundedAmount: 0,
    decisionReasons: null,
    decidedAt: null,
    acceptedOffer: null,
    reminderAt: null,
    reviewAt: null,
    reviewOutcome: null,
    cancelReason: null,
    customCancelReason: null,
    duplicateFingerprint: fingerprint,
    version: 0,
    updatedAt: app.createdAt,
  };
}

/** Creates finish in this many rounds: a collision with an expired holder is released and tried again. */
const CREATE_ROUNDS = 3;

/**
 * Stores a new application, its lines and first event, as one batch, unless it is a duplicate (spec
 * rule 1): the unique index on (partner, fingerprint) makes concurrent identical creates collide in the
 * database instead of racing. On a collision the holder of the fingerprint is looked at: inside the
 * duplicate window it is the answer; older, it leaves the window (releases the fingerprint) and the
 * insert is tried again. So the usual create is one batch, and only the rare collision pays more round
 * trips. StorageQuotaExceeded when the partner's storage is used up.
 */
export async function createApplication(
  db: Database,
  plan: CreatePlan,
  owner: { partnerId: string; fingerprint: string; quota: number },
): Promise<
  { outcome: "created"; row: Aggregate["application"] } | { outcome: "duplicate"; id: string } | { outcome: "conflict" }
> {
  const row = newApplicationRow(plan, owner.partnerId, owner.fingerprint);
  for (let round = 1; round <= CREATE_ROUNDS; round++) {
    if ((await insertApplication(db, row, plan.lines, plan.event, owner.quota)) === "created") {
      return { outcome: "created", row };
    }
    const twin = await fingerprintHolder(db, owner.partnerId, owner.fingerprint);
    if (twin && withinDuplicateWindow(twin.createdAt, row.createdAt)) return { outcome: "duplicate", id: twin.id };
    if (twin) await releaseFingerprint(db, twin.id, owner.fingerprint);
  }
  return { outcome: "conflict" };
}

/** A new application with its lines and first event, as one batch (see `createApplication`). */
async function insertApplication(
  db: Database,
  application: ApplicationRow,
  lines: readonly Line[],
  event: EventRecord,
  quota: number,
): Promise<"created" | "duplicate"> {
  const rows = lines.map((l) => lineRow(application.id, l, application.createdAt));
  // The lookup rows the database's trigger adds, one per distinct symbol (migrations/0008_variable_symbols_by_partner.sql), count too.
  const symbols = new Set(application.variableSymbols ? application.variableSymbols.split(",") : []);
  const bytes = [...symbols].reduce(
    (sum, variableSymbol) =>
      sum + rowBytes({ partnerId: application.partnerId, variableSymbol, applicationId: application.id }),
    rows.reduce((sum, row) => sum + rowBytes(row), rowBytes(application)),
  );
  try {
    // Statements prepared once (insertRows), not built by Drizzle per request: create is the hottest write.
    await db.$client.batch([
      insertRows(db, applications, [application]),
      ...chunks(rows).map((chunk) => insertRows(db, orderLines, chunk)),
      insertRows(db, events, [eventRow(application, event)]),
      countUsage(db, application.partnerId, bytes, quota),
    ]);
    return "created";
  } catch (error) {
    if (isConstraintError(error, "applications.duplicate_fingerprint")) return "duplicate";
    if (isConstraintError(error, QUOTA_CHECK)) throw new StorageQuotaExceeded();
    throw error;
  }
}

/** The application holding a duplicate fingerprint of the partner, if any. */
async function fingerprintHolder(db: Database, partnerId: string, fingerprint: string) {
  return db
    .select({ id: applications.id, createdAt: applications.createdAt })
    .from(applications)
    .where(and(eq(applications.partnerId, partnerId), eq(applications.duplicateFingerprint, fingerprint)))
    .get();
}

/** The application leaves the duplicate window: its fingerprint is free for a new application. */
async function releaseFingerprint(db: Database, applicationId: string, fingerprint: string): Promise<void> {
  await db
    .update(applications)
    .set({ duplicateFingerprint: null })
    .where(and(eq(applications.id, applicationId), eq(applications.duplicateFingerprint, fingerprint)));
}
