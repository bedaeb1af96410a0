/**
 * The one write path of an application: a plan of the domain (src/domain/plan.ts) becomes one D1 batch.
 * D1 has no interactive transactions, only atomic batches, so the batch starts with the conditional
 * update of the application (`WHERE version = ?`) and the write_guard statement whose CHECK aborts the
 * whole batch when that update matched nothing: a concurrent write won, and nothing of this one lands.
 * Its statements are Drizzle's SQL bound without Drizzle (./writes.ts), so a change's first request
 * loads no Drizzle. A plan that keeps a document puts its file to R2 first (./document-files.ts).
 */
import type { Line } from "../domain/order-lines";
import { applyPlan, type EventRecord, type Plan } from "../domain/plan";
import type { SettlementEntry } from "../domain/settlement-entries";
import type { Shipment } from "../domain/shipments";
import type { Aggregate } from "./applications";
import { type DocumentFile, documentFileKey, keepingFile } from "./document-files";
import type { OrderLineRow, ShipmentRow } from "./schema";
import type { WriteTableName } from "./statements";
import { countUsage, documentBytes, rowBytes } from "./storage";
import { commit, WRITE_GUARD } from "./write-batch";
import { columnCount, deleteWhere, insertRows, updateWhere, type WriteRows } from "./writes";

/**
 * Writes the plan, or throws WriteConflict when another write changed the application first, or
 * StorageQuotaExceeded when what it adds would take the partner past `quota` (their own quota, when
 * they have one, wins). `alongside`: statements that land with the plan or not at all (its audit
 * entry). A document's file goes to `files` before the batch, and is taken back if the batch is
 * refused. Answers the aggregate as written.
 */
export async function writePlan(
  client: D1Database,
  files: R2Bucket,
  current: Aggregate,
  plan: Plan,
  at: number,
  quota: number,
  alongside: readonly D1PreparedStatement[] = [],
): Promise<Aggregate> {
  const { application: app } = current;
  const file: DocumentFile | undefined = plan.document && {
    key: documentFileKey(app.partnerId, app.id, plan.document.id),
    base64: plan.document.content,
  };
  const statements = [...planStatements(client, current, plan, at, quota, file?.key), ...alongside];
  if (!file) await commit(client, statements);
  else await keepingFile(client, files, file, at, (recorded) => commit(client, [...statements, ...recorded]));
  return written(current, plan, at);
}

/**
 * Several applications' plans in one batch (the deadline sweep's): each keeps its own guard, so the
 * batch lands whole or not at all; on a conflict or a quota the caller writes them one by one.
 */
export async function writePlans(
  client: D1Database,
  writes: readonly { current: Aggregate; plan: Plan }[],
  at: number,
  quota: number,
): Promise<void> {
  await commit(
    client,
    writes.flatMap(({ current, plan }) => planStatements(client, current, plan, at, quota)),
  );
}

/** The aggregate as the plan, once written, leaves it. */
function written(current: Aggregate, plan: Plan, at: number): Aggregate {
  const next = applyPlan(current, plan);
  return {
    application: {
      ...next.application,
      idleSince: plan.application.idleSince ?? at,
      version: current.application.version + 1,
      updatedAt: at,
    },
    lines: [...next.lines],
    // As reads present them: never the content.
    documents: next.documents.map(({ id, type, filename, description }) => ({ id, type, filename, description })),
    settlement: next.settlement,
  };
}

/**
 * The statements that write the plan, led by the application's guarded update. A document's row names
 * `fileKey`, where writePlan put its file (the sweep's plans keep none).
 */
function planStatements(
  client: D1Database,
  current: Aggregate,
  plan: Plan,
  at: number,
  quota: number,
  fileKey?: string,
) {
  const app = current.application;
  // What the write adds to the partner's usage (./storage.ts), less what it removes.
  let grown = 0;
  const statements: D1PreparedStatement[] = [
    updateWhere(
      client,
      "applications",
      // Every write starts the archive's age again (src/domain/archive.ts), unless the plan moves it.
      { idleSince: at, ...plan.application, version: app.version + 1, updatedAt: at },
      { id: app.id, version: app.version },
    ),
    client.prepare(WRITE_GUARD),
  ];
  if (plan.event) statements.push(insertRows(client, "events", [eventRow(app, plan.event)]));
  if (plan.lines?.replace) {
    statements.push(deleteWhere(client, "orderLines", { applicationId: app.id }));
    for (const line of current.lines) grown -= rowBytes(lineRow(app.id, line, at));
  }
  if (plan.refund) {
    const refund = { ...plan.refund, applicationId: app.id };
    statements.push(insertRows(client, "refunds", [refund]));
    grown += rowBytes(refund);
  }
  if (plan.document) {
    if (fileKey === undefined) throw new Error("a plan that keeps a document is written by writePlan");
    const document = { ...plan.document, applicationId: app.id };
    // The file is in R2: the row keeps its metadata, and its content is empty (see the schema).
    statements.push(insertRows(client, "documents", [{ ...document, content: "", fileKey }]));
    grown += documentBytes(document);
  }
  if (plan.lines) {
    const byId = new Map(plan.lines.lines.map((l) => [l.id, l]));
    const created = plan.lines.created.map((id) => lineRow(app.id, byId.get(id)!, at));
    const updated = plan.lines.updated.map((id) => byId.get(id)!);
    if (updated.length > 0) statements.push(updateLines(client, updated, at));
    statements.push(...chunks("orderLines", created).map((chunk) => insertRows(client, "orderLines", chunk)));
    for (const row of created) grown += rowBytes(row);
  }
  // The money the operation moves is written with it, or not at all (CONTRACT 6b). Not counted against
  // the partner's storage: a full quota must never stop goods going out and being paid for, and what
  // they add is bounded by the application's own content, which is counted.
  if (plan.shipment) statements.push(insertRows(client, "shipments", [shipmentRow(app, plan.shipment)]));
  if (plan.entries?.length) statements.push(insertEntries(client, plan.entries));
  if (grown !== 0) statements.push(countUsage(client, app.partnerId, grown, quota));
  return statements;
}

/** The event row of the outbox, due for delivery at once. */
export function eventRow(application: { id: string; partnerId: string }, event: EventRecord): WriteRows["events"] {
  return { ...event, applicationId: application.id, partnerId: application.partnerId, nextAttemptAt: event.occurredAt };
}

/**
 * The lines a plan changed, in one statement however many there are (a send of every item of an order
 * was one update per line): what an operation may change of each line is one JSON array read by
 * json_each, as the settlement entries are inserted (insertEntries).
 */
function updateLines(client: D1Database, lines: readonly Line[], at: number): D1PreparedStatement {
  const changed = lines.map((l) => [
    l.id,
    l.quantity,
    l.totalPriceAmount,
    l.totalVatAmount,
    l.state,
    l.sentDate,
    l.deliveryDate,
    l.deliveryTrackingNumber,
  ]);
  return client.prepare(UPDATE_LINES).bind(JSON.stringify(changed), at);
}

const UPDATE_LINES = `UPDATE order_lines SET quantity = line.value ->> 1, total_price_amount = line.value ->> 2,
  total_vat_amount = line.value ->> 3, state = line.value ->> 4, sent_date = line.value ->> 5,
  delivery_date = line.value ->> 6, delivery_tracking_number = line.value ->> 7, updated_at = ?2
FROM json_each(?1) AS line WHERE order_lines.id = line.value ->> 0`;

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

/**
 * An operation's settlement entries in one statement however many there are (a send enters three per
 * item: 1,500 for 500 items), where multi-row inserts would take one statement per 7 entries (D1 binds
 * 100 values a statement). What the entries of one plan share (settlement-entries.ts makes them of one
 * application at one instant) is bound once; each entry's own fields are one JSON array read by json_each.
 */
function insertEntries(client: D1Database, entries: readonly SettlementEntry[]): D1PreparedStatement {
  const shared = entries[0]!;
  const own = entries.map((e) => [e.id, e.type, e.amount, e.lineId, e.shipmentId, e.refundId]);
  return client
    .prepare(INSERT_ENTRIES)
    .bind(
      shared.partnerId,
      shared.currency,
      shared.applicationId,
      shared.orderNumber,
      JSON.stringify(shared.variableSymbols),
      shared.createdAt,
      JSON.stringify(own),
    );
}

const INSERT_ENTRIES = `INSERT INTO settlement_entries (id, partner_id, type, amount, currency, application_id,
  order_number, variable_symbols, line_id, shipment_id, refund_id, created_at, payout_id)
SELECT value ->> 0, ?1, value ->> 1, value ->> 2, ?2, ?3, ?4, ?5, value ->> 3, value ->> 4, value ->> 5, ?6, NULL
FROM json_each(?7)`;

/** The stored row of a shipment: the domain's, with its application and partner. */
export function shipmentRow(application: { id: string; partnerId: string }, shipment: Shipment): ShipmentRow {
  const { totalPrice, deliveryCarrier, ...rest } = shipment;
  return {
    ...rest,
    applicationId: application.id,
    partnerId: application.partnerId,
    totalAmount: totalPrice.amount,
    currency: totalPrice.currency,
    deliveryCarrier: deliveryCarrier?.carrierId ?? null,
  };
}

/** D1 binds at most 100 parameters per statement: new rows go in as few multi-row inserts as fit. */
export function chunks<T>(table: WriteTableName, rows: readonly T[]): T[][] {
  const perInsert = Math.floor(100 / columnCount(table));
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += perInsert) out.push(rows.slice(i, i + perInsert));
  return out;
}
