/**
 * Which reads and writes the Worker runs without Drizzle: build/statements.ts builds each read's
 * statement from its Drizzle query here, and reads each table's columns, into generated/statements.ts;
 * src/db/precompiled.ts runs the statements (each typed by its query), src/db/writes.ts binds the
 * writes. Only types of this module reach the Worker: it is for the build (and its tests).
 */
import { applicationReads } from "./applications";
import type { Database } from "./client";
import { eventReads } from "./events";
import { applications, documents, events, orderLines, refunds, shipments } from "./schema";

/** Each statement built ahead of time: the Drizzle query it stands for, run as one row (`first`) or all. */
export const STATEMENT_QUERIES = {
  applicationAggregate: { query: applicationReads.aggregate, first: true },
  presentedApplication: { query: applicationReads.presented, first: true },
  applicationOwner: { query: applicationReads.owner, first: true },
  fingerprintHolder: { query: applicationReads.fingerprintHolder, first: true },
  partnerEventsPage: { query: (db: Database) => eventReads.partnerPage(db, "start"), first: false },
  partnerEventsAfter: { query: (db: Database) => eventReads.partnerPage(db, "after"), first: false },
  partnerEventsBefore: { query: (db: Database) => eventReads.partnerPage(db, "before"), first: false },
  partnerEvent: { query: eventReads.partnerEvent, first: true },
  eventAttempts: { query: eventReads.attempts, first: false },
} as const;

export type StatementName = keyof typeof STATEMENT_QUERIES;

/** The tables an application's writes insert into, update and delete from (src/db/writes.ts). */
export const WRITE_TABLES_OF = {
  applications,
  orderLines,
  events,
  refunds,
  documents,
  shipments,
} as const;

export type WriteTableName = keyof typeof WRITE_TABLES_OF;
