import { session } from "../../auth/require-session";
import { keysetPage } from "../../collections/keyset";
import { pagingInfo } from "../../collections/links";
import { NotificationsQuery, partnerEvents, partnerNotificationsCollection } from "../../collections/notifications";
import { pageOf, parsePageRequest } from "../../collections/query";
import { database } from "../../db/client";
import { attemptsOf } from "../../db/events";
import { orRefuse } from "../../http/errors";
import { bearerSecurity, failures, jsonContent, openApiRoute, type RouteDefinition } from "../../http/openapi";
import examples from "../examples.json";
import { Notification, presentNotifications } from "./schema";

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

export const listPartnerNotifications = openApiRoute(route, async (c) => {
  const request = orRefuse(await parsePageRequest(partnerNotificationsCollection, c.req.url, c.req.valid("query")));
  const db = database(c.env);
  const page = orRefuse(
    await keysetPage(db, partnerNotificationsCollection, partnerEvents(session(c).partnerId), request),
  );
  const attempts = await attemptsOf(
    db,
    page.rows.map((r) => r.id),
  );
  const data = presentNotifications(page.rows, attempts, c.var.config.SERVICE_TIMEZONE);
  return c.json({ data, pagingInfo: pagingInfo(new URL(c.req.url).pathname, request, page) }, 200);
});
