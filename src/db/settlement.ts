/**
 * The settlement records in D1 (CONTRACT 6b): shipments and their tracking, the ledger's entries and the
 * payouts that take them. An operation's shipment and entries are written by the application's own
 * write path (./application-write.ts); here are the reads, the tracking's write and the payouts'.
 */
import { and, asc, desc, eq, gt, isNull, lt, sql } from "drizzle-orm";
import { balanceOf, type Payout, type Totals, totalsOf } from "../domain/payouts";
import type { SettlementEntry } from "../domain/settlement-entries";
import type { Shipment, Tracking } from "../domain/shipments";
import type { Database } from "./client";
import { MARK_PAYOUT } from "./payout-mark";
import {
  type PayoutRow,
  partners,
  payoutEntries,
  payouts,
  type ShipmentRow,
  settlementEntries,
  shipments,
} from "./schema";
import { countUsage, rowBytes } from "./storage";
import { commit, WRITE_GUARD } from "./write-batch";

/** The partner's shipment of the application; undefined when there is none. */
export async function findShipment(
  db: Database,
  partnerId: string,
  applicationId: string,
  shipmentId: string,
): Promise<ShipmentRow | undefined> {
  return db
    .select()
    .from(shipments)
    .where(
      and(eq(shipments.id, shipmentId), eq(shipments.applicationId, applicationId), eq(shipments.partnerId, partnerId)),
    )
    .get();
}

/** A stored shipment as the domain has it. */
export function shipmentOfRow(row: ShipmentRow): Shipment {
  return {
    id: row.id,
    reference: row.reference,
    items: row.items,
    totalPrice: { amount: row.totalAmount, currency: row.currency },
    sentDate: row.sentDate,
    deliveryCarrier: row.deliveryCarrier === null ? null : { carrierId: row.deliveryCarrier },
    tracking: row.tracking,
    createdAt: row.createdAt,
    lineIds: row.lineIds,
  };
}

/**
 * The shipment's tracking replaced by `tracking`, which appends to what `before` held: guarded on the
 * number of entries it read (tracking only grows), so two appends racing cannot lose one; the added
 * entries count against the partner's storage (the partner wrote them). Throws WriteConflict or
 * StorageQuotaExceeded (./write-batch.ts).
 */
export async function writeTracking(
  client: D1Database,
  before: ShipmentRow,
  tracking: readonly Tracking[],
  quota: number,
): Promise<void> {
  const grown = rowBytes(tracking) - rowBytes(before.tracking);
  await commit(client, [
    client
      .prepare("UPDATE shipments SET tracking = ?1 WHERE id = ?2 AND json_array_length(tracking) = ?3")
      .bind(JSON.stringify(tracking), before.id, before.tracking.length),
    client.prepare(WRITE_GUARD),
    countUsage(client, before.partnerId, grown, quota),
  ]);
}

/** What the partner's open entries (in no payout yet) add up to, per currency, in currency order. */
export async function openBalance(db: Database, partnerId: string): Promise<({ currency: string } & Totals)[]> {
  const sums = await db
    .select({
      currency: settlementEntries.currency,
      type: settlementEntries.type,
      amount: sql<number>`sum(${settlementEntries.amount})`,
    })
    .from(settlementEntries)
    .where(and(eq(settlementEntries.partnerId, partnerId), isNull(settlementEntries.payoutId)))
    .groupBy(settlementEntries.currency, settlementEntries.type);
  return balanceOf(sums);
}

/** The open entries of a partner and currency created before `before`: what a payout closing then takes. */
const takenBy = (partnerId: string, currency: string, before: number) =>
  and(
    eq(settlementEntries.partnerId, partnerId),
    eq(settlementEntries.currency, currency),
    isNull(settlementEntries.payoutId),
    lt(settlementEntries.createdAt, before),
  );

/** What a payout closing at `before` would take: its totals and how many entries, read by sums, not row by row. */
export async function openTotals(
  db: Database,
  partnerId: string,
  currency: string,
  before: number,
): Promise<{ totals: Totals; count: number }> {
  const sums = await db
    .select({
      type: settlementEntries.type,
      amount: sql<number>`sum(${settlementEntries.amount})`,
      count: sql<number>`count(*)`,
    })
    .from(settlementEntries)
    .where(takenBy(partnerId, currency, before))
    .groupBy(settlementEntries.type);
  return { totals: totalsOf(sums), count: sums.reduce((n, s) => n + s.count, 0) };
}

/**
 * Partners with open entries created before the cutoff `before` whose payouts of that cutoff were not
 * closed yet, at most `limit`: whom the next closing visits. A partner is visited once a cutoff
 * (`payoutsClosedUntil`), whatever its entries add up to, so partners whose entries wait (nothing
 * positive to pay) never hold up the others; those with nothing before the cutoff are passed at once,
 * in one statement, so that each run reads only whom it still has to pay.
 */
export async function partnersToClose(db: Database, before: number, limit: number): Promise<string[]> {
  // Named by hand: inside the subquery Drizzle would leave the outer table's column bare.
  const due = sql`exists (select 1 from ${settlementEntries} "e" where "e"."partner_id" = "partners"."id" and "e"."payout_id" is null and "e"."created_at" < ${before})`;
  const unvisited = lt(partners.payoutsClosedUntil, before);
  await db
    .update(partners)
    .set({ payoutsClosedUntil: before })
    .where(and(unvisited, sql`not ${due}`));
  const rows = await db.select({ id: partners.id }).from(partners).where(and(unvisited, due)).limit(limit);
  return rows.map((r) => r.id);
}

/** The currencies of the partner's open entries created before `before`. */
export async function openCurrencies(db: Database, partnerId: string, before: number): Promise<string[]> {
  const rows = await db
    .selectDistinct({ currency: settlementEntries.currency })
    .from(settlementEntries)
    .where(
      and(
        eq(settlementEntries.partnerId, partnerId),
        isNull(settlementEntries.payoutId),
        lt(settlementEntries.createdAt, before),
      ),
    )
    .orderBy(asc(settlementEntries.currency));
  return rows.map((r) => r.currency);
}

/** The partner's payouts of the cutoff `before` are closed: the next closing of it passes the partner by. */
export async function closedUntil(db: Database, partnerId: string, before: number): Promise<void> {
  await db.update(partners).set({ payoutsClosedUntil: before }).where(eq(partners.id, partnerId));
}

/** Raised when the reference drawn for a payout is another's already: draw again. */
export class ReferenceTaken extends Error {}

/**
 * Closes `payout` over the open entries of its partner and currency created before its periodEnd, in one
 * batch: the payout, its entries marked as its own (only those still open: a racing closing takes each
 * once), a guard that they are exactly what the payout's totals were planned on (an entry entered or
 * taken since the sums were read fails it: WriteConflict, and the caller plans again), and the list of
 * what it took, kept for its report for ever. Its cost does not grow with its entries in statements:
 * four, whatever it takes.
 */
export async function writePayout(client: D1Database, payout: Payout): Promise<void> {
  const { totals } = payout;
  try {
    await commit(client, [
      client
        .prepare(
          `INSERT INTO payouts (id, partner_id, reference, currency, period_end, status, sales, refunds, fees, fee_vat, net, entries, created_at)
           VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)`,
        )
        .bind(
          payout.id,
          payout.partnerId,
          payout.reference,
          payout.currency,
          payout.periodEnd,
          payout.status,
          totals.sales,
          totals.refunds,
          totals.fees,
          totals.feeVat,
          totals.net,
          payout.entries,
          payout.createdAt,
        ),
      client
        .prepare(
          `UPDATE settlement_entries SET payout_id = ?1
           WHERE partner_id = ?2 AND currency = ?3 AND payout_id IS NULL AND created_at < ?4`,
        )
        .bind(payout.id, payout.partnerId, payout.currency, payout.periodEnd),
      client
        .prepare(
          `INSERT OR REPLACE INTO write_guard (id, ok)
           SELECT 1, count(*) = ?2
             AND coalesce(sum(CASE type WHEN 'SALE' THEN amount END), 0) = ?3
             AND coalesce(sum(CASE type WHEN 'REFUND' THEN amount END), 0) = ?4
             AND coalesce(sum(CASE type WHEN 'FEE' THEN amount END), 0) = ?5
             AND coalesce(sum(CASE type WHEN 'FEE_VAT' THEN amount END), 0) = ?6
           FROM settlement_entries WHERE payout_id = ?1`,
        )
        .bind(payout.id, payout.entries, totals.sales, totals.refunds, totals.fees, totals.feeVat),
      client
        .prepare(
          "INSERT INTO payout_entries (payout_id, entry_id) SELECT ?1, id FROM settlement_entries WHERE payout_id = ?1",
        )
        .bind(payout.id),
    ]);
  } catch (error) {
    if (String((error as Error).message).includes("payouts.reference")) throw new ReferenceTaken();
    throw error;
  }
}

/** A stored payout as the domain has it. */
export function payoutOfRow(row: PayoutRow): Payout {
  return {
    id: row.id,
    partnerId: row.partnerId,
    reference: row.reference,
    currency: row.currency,
    periodEnd: row.periodEnd,
    status: row.status,
    totals: { sales: row.sales, refunds: row.refunds, fees: row.fees, feeVat: row.feeVat, net: row.net },
    entries: row.entries,
    createdAt: row.createdAt,
    paidAt: row.paidAt,
  };
}

/** The partner's payout; undefined when there is none. */
export async function findPayout(db: Database, partnerId: string, payoutId: string): Promise<PayoutRow | undefined> {
  return db
    .select()
    .from(payouts)
    .where(and(eq(payouts.id, payoutId), eq(payouts.partnerId, partnerId)))
    .get();
}

/** The payout marked as `marked` says (PAID or FAILED), if it is still PENDING (./payout-mark.ts); whether it was. */
export async function markPayout(client: D1Database, marked: Payout): Promise<boolean> {
  const result = await client.prepare(MARK_PAYOUT).bind(marked.status, marked.paidAt, marked.id).run();
  return result.meta.changes === 1;
}

/** An entry as a payout's pages and report read it: with its shipment's reference, the partner's own. */
export interface PayoutEntryRow extends Omit<SettlementEntry, "partnerId" | "lineId"> {
  shipmentReference: string | null;
}

/** What a payout took, through the list it keeps of it (payout_entries), which a FAILED payout keeps too. */
export const payoutEntriesQuery = (db: Database) =>
  db
    .select({
      id: settlementEntries.id,
      type: settlementEntries.type,
      amount: settlementEntries.amount,
      currency: settlementEntries.currency,
      applicationId: settlementEntries.applicationId,
      orderNumber: settlementEntries.orderNumber,
      variableSymbols: settlementEntries.variableSymbols,
      shipmentId: settlementEntries.shipmentId,
      shipmentReference: shipments.reference,
      refundId: settlementEntries.refundId,
      createdAt: settlementEntries.createdAt,
      payoutId: settlementEntries.payoutId,
    })
    .from(payoutEntries)
    .innerJoin(settlementEntries, eq(settlementEntries.id, payoutEntries.entryId))
    .leftJoin(shipments, eq(shipments.id, settlementEntries.shipmentId))
    .$dynamic();

/** Entries a report's statement reads at once: a payout of 100 000 entries is a hundred statements. */
const REPORT_PAGE = 1000;

/** Every entry a payout took, in the order entered, a page at a time (its report's). */
export async function* payoutEntryPages(db: Database, payoutId: string): AsyncGenerator<PayoutEntryRow[]> {
  let after = "";
  for (;;) {
    const page = await payoutEntriesQuery(db)
      .where(and(eq(payoutEntries.payoutId, payoutId), gt(payoutEntries.entryId, after)))
      .orderBy(asc(payoutEntries.entryId))
      .limit(REPORT_PAGE);
    if (page.length > 0) yield page;
    if (page.length < REPORT_PAGE) return;
    after = page.at(-1)!.id;
  }
}

/**
 * An application's entries, the latest first, on its (application_id, id) index: each with the payout
 * holding it (PENDING or PAID), whose id, reference and status are null while the entry is open (a
 * FAILED payout's entries are open again).
 */
export const latestEntriesQuery = (db: Database, partnerId: string, applicationId: string, limit: number) =>
  db
    .select({
      id: settlementEntries.id,
      type: settlementEntries.type,
      amount: settlementEntries.amount,
      currency: settlementEntries.currency,
      createdAt: settlementEntries.createdAt,
      payoutId: settlementEntries.payoutId,
      payoutReference: payouts.reference,
      payoutStatus: payouts.status,
    })
    .from(settlementEntries)
    .leftJoin(payouts, eq(payouts.id, settlementEntries.payoutId))
    .where(and(eq(settlementEntries.applicationId, applicationId), eq(settlementEntries.partnerId, partnerId)))
    .orderBy(desc(settlementEntries.id))
    .limit(limit);

/** An entry as an application's page lists it. */
export type ApplicationEntryRow = Awaited<ReturnType<typeof latestEntriesQuery>>[number];

/**
 * The application's latest `limit` entries in the order entered, and whether earlier ones exist: read
 * backwards on its index, so the cost is the page's whatever the application holds.
 */
export async function latestEntriesOf(
  db: Database,
  partnerId: string,
  applicationId: string,
  limit: number,
): Promise<{ rows: ApplicationEntryRow[]; more: boolean }> {
  const rows = await latestEntriesQuery(db, partnerId, applicationId, limit + 1);
  return { rows: rows.slice(0, limit).reverse(), more: rows.length > limit };
}

/** PAID payouts whose applications are not all told yet (READY_PAID), in the order they were paid. */
export async function payoutsToTell(db: Database, limit: number): Promise<string[]> {
  const rows = await db
    .select({ id: payouts.id })
    .from(payouts)
    .where(and(eq(payouts.status, "PAID"), isNull(payouts.applicationsToldAt)))
    .orderBy(asc(payouts.paidAt))
    .limit(limit);
  return rows.map((r) => r.id);
}

/**
 * Applications a PAID payout holds a sale of that are READY and not READY_PAID yet, at most `limit`: as
 * each is told it leaves this list, so the next call answers the next ones.
 */
export async function applicationsToTell(
  client: D1Database,
  payoutId: string,
  limit: number,
): Promise<{ applicationId: string; partnerId: string }[]> {
  const { results } = await client
    .prepare(
      `SELECT DISTINCT a.id AS applicationId, a.partner_id AS partnerId
       FROM settlement_entries e JOIN applications a ON a.id = e.application_id
       WHERE e.payout_id = ?1 AND e.type = 'SALE' AND a.state = 'READY' AND a.state_reason <> 'READY_PAID'
       LIMIT ?2`,
    )
    .bind(payoutId, limit)
    .all<{ applicationId: string; partnerId: string }>();
  return results;
}

/** Every application the payout pays has been told. */
export async function markTold(db: Database, payoutId: string, at: number): Promise<void> {
  await db.update(payouts).set({ applicationsToldAt: at }).where(eq(payouts.id, payoutId));
}
