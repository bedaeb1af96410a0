import { bearerSecurity, failures, jsonContent, openApiRoute, type RouteDefinition } from "../../api";
import { session } from "../../auth/require-session";
import { auditEventsCollection, partnerAuditEvents } from "../../collections/audit-events";
import { keysetPage } from "../../collections/keyset";
import { pagingInfo } from "../../collections/links";
import { pageOf, parsePageRequest } from "../../collections/query";
import { orRefuse } from "../../http/errors";
import examples from "../examples.json";
import { AuditEvent, AuditEventsQuery, presentAuditEvent } from "./schema";

const route = {
  operationId: "listAuditEvents",
  method: "get",
  path: "/financing/v1/audit-events",
  tags: ["Audit log"],
  summary: "List the audit log",
  description:
    "Every console action and every API write of the partner, oldest first: who (a person of the console, or `API` with the id of the access token: the first 16 hex digits of its SHA-256), what (the operation and its key figures: application, amount, reason), when, from which address, and the outcome (refusals included). Append-only: an entry never changes. An API request answered again from its `Idempotency-Key` is not a second entry. Paged, sorted and filtered like every collection.",
  security: bearerSecurity,
  request: () => ({ query: AuditEventsQuery() }),
  responses: () => ({
    200: jsonContent(pageOf(AuditEvent(), "AuditEventPage"), "A page of the audit log", examples.auditEventPage),
    ...failures({ lookup: false }),
  }),
} satisfies RouteDefinition;

export const listAuditEvents = openApiRoute(route, async (c) => {
  const request = orRefuse(await parsePageRequest(auditEventsCollection, c.req.url, c.req.valid("query")));
  const page = orRefuse(
    await keysetPage(await c.var.db.orm(), auditEventsCollection, partnerAuditEvents(session(c).partnerId), request),
  );
  const timeZone = c.var.config.SERVICE_TIMEZONE;
  return c.json(
    {
      data: page.rows.map((row) => presentAuditEvent(row, timeZone)),
      pagingInfo: pagingInfo(new URL(c.req.url).pathname, request, page),
    },
    200,
  );
});
