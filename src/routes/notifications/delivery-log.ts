import type { Context } from "hono";
import { bearerSecurity, failures, jsonContent, openApiRoute, type RouteDefinition } from "../../api";
import { session } from "../../auth/require-session";
import type { Page, PageRequest } from "../../collections/collection";
import { pagingInfo } from "../../collections/links";
import { partnerLogPage } from "../../collections/partner-log";
import { type PageParams, pageOf, parsePageRequest, plainPageRequest } from "../../collections/query";
import { attemptsOf } from "../../db/event-reads";
import type { EventRow } from "../../db/schema";
import type { HonoEnv } from "../../env";
import { orRefuse } from "../../http/errors";
import examples from "../examples.json";
import { Notification, NotificationsQuery, presentNotifications } from "./schema";

const route = {
  operationId: "listNotifications",
  method: "get",
  path: "/financing/v1/notifications",
  tags: ["Notifications"],
  summary: "List notifications across applications (delivery log)",
  description:
    "Every event of the partner's applications with its delivery status, attempts and, for a FAILED one, the reason: the place to see what an outage of your endpoint missed, before replaying it. Paged, sorted and filtered like every collection.",
  security: bearerSecurity,
  request: () => ({ query: NotificationsQuery() }),
  responses: () => ({
    200: jsonContent(
      pageOf(Notification(), "PartnerNotificationPage"),
      "A page of notifications",
      examples.partnerNotificationPage,
    ),
    ...failures({ lookup: false }),
  }),
} satisfies RouteDefinition;

/**
 * The page asked for. In the log's own order and unfiltered, as a partner polling it asks, it is read
 * through the statements the build wrote: the log's first request in an isolate loads neither Drizzle
 * nor the schema. Sorted or filtered, the collection's keyset query reads it, loaded then.
 */
async function logPage(
  c: Context<HonoEnv>,
  query: PageParams,
): Promise<{ request: PageRequest; page: Page<EventRow> }> {
  const partnerId = session(c).partnerId;
  const plain = plainPageRequest(c.req.url, query);
  if (plain) {
    const request = orRefuse(plain);
    return { request, page: orRefuse(await partnerLogPage(c.var.db.client, partnerId, request)) };
  }
  const [{ keysetPage }, { partnerEvents, partnerNotificationsCollection }] = await Promise.all([
    import("../../collections/keyset"),
    import("../../collections/notifications"),
  ]);
  const request = orRefuse(await parsePageRequest(partnerNotificationsCollection, c.req.url, query));
  const page = orRefuse(
    await keysetPage(await c.var.db.orm(), partnerNotificationsCollection, partnerEvents(partnerId), request),
  );
  return { request, page };
}

export const listPartnerNotifications = openApiRoute(route, async (c) => {
  const { request, page } = await logPage(c, c.req.valid("query"));
  const attempts = await attemptsOf(
    c.var.db.client,
    page.rows.map((r) => r.id),
  );
  const data = presentNotifications(page.rows, attempts, c.var.config.SERVICE_TIMEZONE);
  return c.json({ data, pagingInfo: pagingInfo(new URL(c.req.url).pathname, request, page) }, 200);
});
