/**
 * Reading the partner's delivery log and the attempts of its events without Drizzle: the statements the
 * build wrote from `eventReads` (./events.ts), run by ./precompiled.ts. The log's first request in an
 * isolate then loads neither Drizzle nor the schema.
 */
import { STATEMENTS } from "../../generated/statements";
import type { AttemptRow } from "./events";
import { readAll, readFirst } from "./precompiled";
import type { EventRow } from "./schema";

/** The delivery attempts of the events given, oldest first: one statement for a whole page. */
export async function attemptsOf(client: D1Database, eventIds: readonly string[]): Promise<AttemptRow[]> {
  if (eventIds.length === 0) return [];
  return readAll(client, STATEMENTS.eventAttempts, { eventIds: JSON.stringify(eventIds) });
}

const PAGES = {
  start: STATEMENTS.partnerEventsPage,
  after: STATEMENTS.partnerEventsAfter,
  before: STATEMENTS.partnerEventsBefore,
} as const;

/**
 * Up to `limit` of the partner's events by id: from the first, after the cursor, or before it (the
 * nearest first). Empty for a cursor that is not one of the partner's events.
 */
export async function partnerEventsById(
  client: D1Database,
  partnerId: string,
  limit: number,
  from: keyof typeof PAGES,
  cursor?: string,
): Promise<EventRow[]> {
  return readAll(client, PAGES[from], { partnerId, limit, cursor });
}

/** Whether the id is one of the partner's events. */
export const isPartnerEvent = async (client: D1Database, partnerId: string, eventId: string) =>
  (await readFirst(client, STATEMENTS.partnerEvent, { partnerId, cursor: eventId })) !== undefined;
