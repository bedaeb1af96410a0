/**
 * Reads and writes of the application aggregate (application, order lines, documents, refunds,
 * events). Every write is one `db.batch` led by a conditional update of the application's version.
 */
import { and, eq, getTableColumns, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { ApplicationState, LineState, StateReason } from "../domain/application-state";
import type { Line, LinesChange } from "../domain/order-lines";
import { ApiError, detail } from "../http/errors";
import { newId } from "../ids";
import { type Database, prepared } from "./client";
import { type ApplicationRow, applications, events, type OrderLineRow, orderLines } from "./schema";

export type StoredLine = Line & Omit<OrderLineRow, "state"> & { state: LineState };

export interface Aggregate {
  application: ApplicationRow & { state: ApplicationState; stateReason: StateReason };
  lines: StoredLine[];
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

/** The application with its lines and documents in one statement; 404 when absent or another partner's. */
export async function loadAggregate(db: Database, partnerId: string, applicationId: string): Promise<Aggregate> {
  const found = await aggregateQuery(db).execute({ applicationId, partnerId });
  if (!found) throw ApiError.notFound("application");
  const { lines, documents: docs, ...application } = found;
  return {
    application: application as Aggregate["application"],
    lines: lines as StoredLine[],
    documents: docs,
  };
}

/**
 * Losing every round takes a storm of writes to one application: the client's retry is the remedy, so
 * it gets a clear 409, not a 500 that reads as our fault.
 */
export function conflict(): ApiError {
  return new ApiError(409, "conflict", "concurrent requests changed the same application; retry the request", [
    detail("CONCURRENT_MODIFICATION", "retry the request"),
  ]);
}

/** Raised when another request changed the application between our read and our write. */
export class WriteConflict extends Error {}

/**
 * Runs `attempt` (load, decide, write) again when it lost a race: each round re-reads the state, so the
 * decision is always taken on what the write will actually change. D1 serialises writes, so at least
 * one racer wins every round.
 */
export async function withRetries<T>(attempt: () => Promise<T>, rounds = 25): Promise<T> {
  for (let round = 1; ; round++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof WriteConflict)) throw error;
      if (round >= rounds) throw conflict();
    }
  }
}

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

export interface ApplicationPatch {
  state?: ApplicationState;
  stateReason?: StateReason;
  totalAmount?: number;
  approvedAmount?: number;
  decisionReasons?: string[];
  decidedAt?: number;
  cancelReason?: string;
  customCancelReason?: string | null;
  agreementTermsAndConditions?: boolean;
  /** Extra amount refunded by this write. */
  refund?: number;
}

/**
 * The statements that start every write: the conditional update of the application (bumping its
 * version, and its event sequence when state or reason change, with the event row itself) and the
 * guard that aborts the batch when the update matched nothing.
 */
export function applicationWrite(
  db: Database,
  current: Aggregate["application"],
  patch: ApplicationPatch,
  at: number,
): {
  statements: [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]];
  eventIds: string[];
  next: Aggregate["application"];
} {
  const { refund, ...fields } = patch;
  const state = patch.state ?? current.state;
  const stateReason = patch.stateReason ?? current.stateReason;
  const changed = state !== current.state || stateReason !== current.stateReason;
  const sequence = current.eventSequence + (changed ? 1 : 0);
  const statements: [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]] = [
    db
      .update(applications)
      .set({
        ...fields,
        ...(refund ? { refundedAmount: sql`${applications.refundedAmount} + ${refund}` } : {}),
        eventSequence: sequence,
        version: current.version + 1,
        updatedAt: at,
      })
      .where(and(eq(applications.id, current.id), eq(applications.version, current.version))),
    db.run(sql`INSERT OR REPLACE INTO write_guard (id, ok) VALUES (1, changes())`),
  ];
  const eventIds: string[] = [];
  if (changed) {
    const event = { id: newId(at), applicationId: current.id, sequence, state, stateReason, occurredAt: at };
    statements.push(db.insert(events).values(event));
    eventIds.push(event.id);
  }
  const next = {
    ...current,
    ...fields,
    state,
    stateReason,
    refundedAmount: current.refundedAmount + (refund ?? 0),
    eventSequence: sequence,
    version: current.version + 1,
    updatedAt: at,
  };
  return { statements, eventIds, next };
}

/** D1 binds at most 100 parameters per statement: new lines go in as few multi-row inserts as fit. */
const LINES_PER_INSERT = Math.floor(100 / Object.keys(getTableColumns(orderLines)).length);

export function insertLines(db: Database, rows: OrderLineRow[]): BatchItem<"sqlite">[] {
  const statements: BatchItem<"sqlite">[] = [];
  for (let i = 0; i < rows.length; i += LINES_PER_INSERT) {
    statements.push(db.insert(orderLines).values(rows.slice(i, i + LINES_PER_INSERT)));
  }
  return statements;
}

/** Inserts for the lines a change created and updates for those it changed. */
export function lineWrites(db: Database, change: LinesChange, at: number): BatchItem<"sqlite">[] {
  const byId = new Map(change.lines.map((l) => [l.id, l as StoredLine]));
  return [
    ...change.updated.map((id) => {
      const line = byId.get(id)!;
      return db
        .update(orderLines)
        .set({
          quantity: line.quantity,
          totalPriceAmount: line.totalPriceAmount,
          totalVatAmount: line.totalVatAmount,
          state: line.state,
          sentDate: line.sentDate,
          deliveryDate: line.deliveryDate,
          deliveryTrackingNumber: line.deliveryTrackingNumber,
          updatedAt: at,
        })
        .where(eq(orderLines.id, id));
    }),
    ...insertLines(
      db,
      [...new Set(change.created)].map((id) => ({ ...byId.get(id)!, id, createdAt: at, updatedAt: at })),
    ),
  ];
}
