/**
 * Reading one application by id, without Drizzle: the statements the build wrote (src/db/precompiled.ts).
 * The gateway page loads only this, not Drizzle and the schema; a partner's GET and every write's first
 * read use the same statements.
 */
import { STATEMENTS } from "../../generated/statements";
import { aggregateFromRow, aggregateToWrite } from "./aggregate-row";
import type { PresentedAggregate } from "./applications";
import { readFirst } from "./precompiled";

/** The application as a write reads it, in one statement; null when absent or another partner's. */
export async function loadAggregate(client: D1Database, partnerId: string, applicationId: string) {
  const found = await readFirst(client, STATEMENTS.applicationAggregate, { applicationId, partnerId });
  return found ? aggregateToWrite(found) : null;
}

/** What presenting the application needs, in one statement; null when absent or another partner's. */
export async function loadPresented(client: D1Database, partnerId: string, applicationId: string) {
  const found = await readFirst(client, STATEMENTS.presentedApplication, { applicationId, partnerId });
  return found ? aggregateFromRow<PresentedAggregate>(found) : null;
}

/** The partner owning an application, with the name the customer knows them by; null when there is none. */
export async function applicationOwner(client: D1Database, applicationId: string) {
  return (await readFirst(client, STATEMENTS.applicationOwner, { applicationId })) ?? null;
}
