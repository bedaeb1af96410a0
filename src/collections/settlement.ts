/**
 * The settlement lists (CONTRACT 6b): an application's shipments, the partner's payouts, a payout's
 * entries and an application's payments (Skip Pay's). Each pages on an index of its own.
 */
import { and, eq, type SQL, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { payoutEntries, payouts, settlementEntries, shipments } from "../db/schema";
import { type PayoutEntryRow, payoutEntriesQuery } from "../db/settlement";
import { jsonBytes, MAX_PAGE_CONTENT_BYTES } from "../domain/application-size";
import { PAYOUT_STATUSES } from "../domain/payouts";
import { type Collection, EQUALITY_OPERATORS, type PageQuery } from "./collection";
import { columnFilter, enumFilter, instantFilter, textValue } from "./filters";

/**
 * An application's shipments in the order they went out. A shipment holds what it sent and up to ten
 * tracking entries: a page holds what fits the content budget, as a page of applications does.
 */
export const shipmentsCollection = {
  table: shipments,
  id: shipments.id,
  idKey: "id",
  sortable: { id: shipments.id },
  filterable: {},
  budget: {
    bytes: MAX_PAGE_CONTENT_BYTES,
    bytesOf: (row: typeof shipments.$inferSelect) => jsonBytes(row.items) + jsonBytes(row.tracking),
  },
} satisfies Collection<typeof shipments>;

export const applicationShipments = (applicationId: string) => eq(shipments.applicationId, applicationId);

/**
 * The partner's payouts: by id or createdAt, filtered by status, currency, createdAt and reference (the
 * variable symbol on the bank statement: a finance team starts from it).
 */
export const payoutsCollection = {
  table: payouts,
  id: payouts.id,
  idKey: "id",
  sortable: { id: payouts.id, createdAt: payouts.createdAt },
  filterable: {
    status: enumFilter(payouts.status, PAYOUT_STATUSES),
    currency: columnFilter(payouts.currency, EQUALITY_OPERATORS, textValue(3)),
    createdAt: instantFilter(payouts.createdAt),
    reference: columnFilter(payouts.reference, EQUALITY_OPERATORS, textValue(10)),
  },
} satisfies Collection<typeof payouts>;

export const partnerPayouts = (partnerId: string) => eq(payouts.partnerId, partnerId);

/**
 * What a payout took, in the order entered: walked through the list it keeps of them (payout_entries,
 * keyed by payout and entry), which a FAILED payout keeps too, each with its shipment's reference.
 */
export const payoutEntriesCollection = {
  table: payoutEntries,
  id: payoutEntries.entryId,
  idKey: "id",
  sortable: { id: payoutEntries.entryId },
  filterable: {},
  read: (db: Database, where: SQL, orderBy: SQL[], limit: number) =>
    payoutEntriesQuery(db)
      .where(where)
      .orderBy(...orderBy)
      .limit(limit) as unknown as PageQuery<PayoutEntryRow>,
} satisfies Collection<typeof payoutEntries, PayoutEntryRow>;

export const payoutEntriesOf = (payoutId: string) => eq(payoutEntries.payoutId, payoutId);

export interface PaymentRow {
  id: string;
  paidAt: number;
  currency: string;
  amount: number;
}

/**
 * An application's payments as Skip Pay lists them: the PAID payouts holding its entries, by id, each
 * with what its entries add up to in it. Made per application: the sum reads its entries only.
 */
export const paymentsCollection = (applicationId: string) =>
  ({
    table: payouts,
    id: payouts.id,
    idKey: "id",
    sortable: { id: payouts.id },
    filterable: {},
    read: (db: Database, where: SQL, orderBy: SQL[], limit: number) =>
      db
        .select({
          id: payouts.id,
          paidAt: sql<number>`${payouts.paidAt}`,
          currency: payouts.currency,
          // Qualified by hand: Drizzle names a column of the outer query bare inside a subquery.
          amount: sql<number>`(select sum("e"."amount") from ${settlementEntries} "e" where "e"."payout_id" = "payouts"."id" and "e"."application_id" = ${applicationId})`,
        })
        .from(payouts)
        .where(where)
        .orderBy(...orderBy)
        .limit(limit) as unknown as PageQuery<PaymentRow>,
  }) satisfies Collection<typeof payouts, PaymentRow>;

/** The partner's PAID payouts that hold entries of the application. */
export const applicationPayments = (partnerId: string, applicationId: string) =>
  and(
    eq(payouts.partnerId, partnerId),
    eq(payouts.status, "PAID"),
    sql`${payouts.id} in (select ${settlementEntries.payoutId} from ${settlementEntries} where ${settlementEntries.applicationId} = ${applicationId} and ${settlementEntries.payoutId} is not null)`,
  )!;
