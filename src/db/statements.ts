/**
 * The statements built ahead of time: scripts/statements-artefact.ts writes them to
 * generated/statements.ts when the Worker is built, and src/db/precompiled.ts runs them without Drizzle.
 * test/db/statements.test.ts holds the written ones equal to what this builds in workerd.
 */
import { applicationReads } from "./applications";
import type { Database } from "./client";
import { relationalStatement, selectStatement, writeTable } from "./compiler";
import { eventReads } from "./events";
import type { BuiltStatement } from "./rows";
import { applications, documents, events, orderLines, refunds } from "./schema";

/** Every statement built ahead of time, by name, from the Drizzle query it stands for. */
export const buildStatements = (db: Database) =>
  ({
    applicationAggregate: relationalStatement(applicationReads.aggregate(db)),
    presentedApplication: relationalStatement(applicationReads.presented(db)),
    applicationOwner: selectStatement(applicationReads.owner(db), true),
    fingerprintHolder: selectStatement(applicationReads.fingerprintHolder(db), true),
    partnerEventsPage: selectStatement(eventReads.partnerPage(db, "start"), false),
    partnerEventsAfter: selectStatement(eventReads.partnerPage(db, "after"), false),
    partnerEventsBefore: selectStatement(eventReads.partnerPage(db, "before"), false),
    partnerEvent: selectStatement(eventReads.partnerEvent(db), true),
    eventAttempts: selectStatement(eventReads.attempts(db), false),
  }) satisfies Record<string, BuiltStatement>;

export type StatementName = keyof ReturnType<typeof buildStatements>;

/** The tables an application's writes insert into, update and delete from, as src/db/writes.ts binds them. */
export const buildWriteTables = () => ({
  applications: writeTable(applications),
  orderLines: writeTable(orderLines),
  events: writeTable(events),
  refunds: writeTable(refunds),
  documents: writeTable(documents),
});

export type WriteTableName = keyof ReturnType<typeof buildWriteTables>;
