import { bearerSecurity, failures, jsonContent, openApiRoute, type RouteDefinition } from "../../api";
import { session } from "../../auth/require-session";
import { keysetPage } from "../../collections/keyset";
import { pagingInfo } from "../../collections/links";
import { applicationEvents, applicationNotificationsCollection } from "../../collections/notifications";
import { PageQuery, pageOf, parsePageRequest } from "../../collections/query";
import { ownsApplication } from "../../db/applications";
import { attemptsOf } from "../../db/event-reads";
import { ApiError, orRefuse } from "../../http/errors";
import { ApplicationIdParam } from "../applications/schema";
import examples from "../examples.json";
import { Notification, presentNotifications } from "./schema";

const route = {
  operationId: "listApplicationNotifications",
  method: "get",
  path: "/financing/v1/applications/{applicationId}/notifications",
  tags: ["Notifications"],
  summary: "List notifications",
  description:
    "Every state-change event of the application with its delivery status (PENDING, DELIVERED, FAILED) and each attempt (time, HTTP status or error, duration), oldest first.",
  security: bearerSecurity,
  request: () => ({ params: ApplicationIdParam(), query: PageQuery() }),
  responses: () => ({
    200: jsonContent(pageOf(Notification(), "NotificationPage"), "A page of notifications", examples.notificationPage),
    ...failures(),
  }),
} satisfies RouteDefinition;

export const listNotifications = openApiRoute(route, async (c) => {
  const { applicationId } = c.req.valid("param");
  const db = await c.var.db.orm();
  if (!(await ownsApplication(db, session(c).partnerId, applicationId))) throw ApiError.notFound("application");
  const request = orRefuse(await parsePageRequest(applicationNotificationsCollection, c.req.url, c.req.valid("query")));
  const page = orRefuse(
    await keysetPage(db, applicationNotificationsCollection, applicationEvents(applicationId), request),
  );
  const attempts = await attemptsOf(
    c.var.db.client,
    page.rows.map((r) => r.id),
  );
  const data = presentNotifications(page.rows, attempts, c.var.config.SERVICE_TIMEZONE);
  return c.json({ data, pagingInfo: pagingInfo(new URL(c.req.url).pathname, request, page) }, 200);
});
