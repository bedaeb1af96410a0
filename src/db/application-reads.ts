/**
 * Reading one application by id, without Drizzle: the statements the build wrote (src/db/precompiled.ts).
 * The gateway page loads only this, not Drizzle and the schema; a partner's GET and every write's first
 * read use the same statements.
 */
import { aggregateFromRow } from "./aggregate-row";
import type { Aggregate, PresentedAggregate } from "./applications";
import { readFirst } from "./precompiled";

/** One of the aggregate's statements by id and partner; null when absent or another partner's. */
async function readAggregate<A extends PresentedAggregate>(
  client: D1Database,
  statement: "applicationAggregate" | "presentedApplication",
  partnerId: string,
  applicationId: string,
): Promise<A | null> {
  const found = await readFirst(client, statement, { applicationId, partnerId });
  return found ? aggregateFromRow<A>(found) : null;
}

/** The application with its lines and documents in one statement, to write; null when absent or another partner's. */
export const loadAggregate = (client: D1Database, partnerId: string, applicationId: string) =>
  readAggregate<Aggregate>(client, "applicationAggregate", partnerId, applicationId);

/** What presenting the application needs, in one statement; null when absent or another partner's. */
export const loadPresented = (client: D1Database, partnerId: string, applicationId: string) =>
  readAggregate<PresentedAggregate>(client, "presentedApplication", partnerId, applicationId);

/** The partner owning an application, with the name the customer knows them by; null when there is none. */
export async function applicationOwner(
  client: D1Database,
  applicationId: string,
): Promise<{ partnerId: string; merchantName: string } | null> {
  const owner = await readFirst(client, "applicationOwner", { applicationId });
  return (owner as { partnerId: string; merchantName: string } | undefined) ?? null;
}
