/**
 * The partner's delivery log (CONTRACT 6) in its own order and unfiltered, read without Drizzle: the
 * page a partner polling its log asks. The collection (./notifications.ts) reads every other request
 * of it; test/collections/partner-log.test.ts holds the two to the same pages.
 */
import { isPartnerEvent, partnerEventsById } from "../db/event-reads";
import type { EventRow } from "../db/schema";
import type { Result } from "../domain/result";
import type { Page, PageRequest } from "./collection";
import { pageOfRows } from "./page";

/** A page of the partner's events by id, as `keysetPage` reads it from the collection for the same request. */
export async function partnerLogPage(
  client: D1Database,
  partnerId: string,
  request: PageRequest,
): Promise<Result<Page<EventRow>>> {
  if (request.sort.length > 0 || request.filter.length > 0)
    throw new Error("a sorted or filtered page is the collection's");
  const from = request.after !== undefined ? "after" : request.before !== undefined ? "before" : "start";
  const fetched = await partnerEventsById(client, partnerId, request.limit + 1, from, request.after ?? request.before);
  return pageOfRows(request, fetched, "id", (id) => isPartnerEvent(client, partnerId, id));
}
