import { createRoute } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { session } from "../../auth/require-session";
import { config } from "../../config";
import { database } from "../../db/client";
import { assertOwnApplication } from "../../db/ownership";
import { type Collection, keysetPage, PageQuery, pageOf, pagingInfo, parsePageRequest } from "../../db/paging";
import { events } from "../../db/schema";
import { bearerSecurity, commonErrors, jsonContent, router } from "../../http/openapi";
import { ApplicationIdParam } from "../applications/schema";
import { Notification, presentNotifications } from "./schema";

/** Events page in the order they happened (their id). */
const notificationsCollection = {
  table: events,
  id: events.id,
  sortable: { id: events.id },
  filterable: {},
} satisfies Collection<typeof events>;

const route = createRoute({
  method: "get",
  path: "/financing/v1/applications/{applicationId}/notifications",
  tags: ["Notifications"],
  summary: "List notifications",
  description:
    "Every state-change event of the application with its delivery status (PENDING, DELIVERED, FAILED) and each attempt (time, HTTP status or error, duration), oldest first.",
  security: bearerSecurity,
  request: { params: ApplicationIdParam, query: PageQuery },
  responses: { 200: jsonContent(pageOf(Notification, "NotificationPage"), "A page of notifications"), ...commonErrors },
});

export const listNotifications = router().openapi(route, async (c) => {
  const { applicationId } = c.req.valid("param");
  const db = database(c.env);
  await assertOwnApplication(db, session(c).partnerId, applicationId);
  const request = parsePageRequest(notificationsCollection, c.req.url, c.req.valid("query"));
  const page = await keysetPage(db, notificationsCollection, eq(events.applicationId, applicationId), request);
  const data = await presentNotifications(db, page.rows, config(c.env).SERVICE_TIMEZONE);
  return c.json({ data, pagingInfo: pagingInfo(new URL(c.req.url).pathname, request, page) }, 200);
});
