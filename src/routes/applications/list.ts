import { bearerSecurity, failures, jsonContent, openApiRoute, type RouteDefinition } from "../../api";
import { session } from "../../auth/require-session";
import { ApplicationsQuery, applicationScope, applicationsOf } from "../../collections/applications";
import { keysetPage } from "../../collections/keyset";
import { pagingInfo } from "../../collections/links";
import { pageOf, parsePageRequest } from "../../collections/query";
import { aggregateOf } from "../../db/aggregate-row";
import { orRefuse } from "../../http/errors";
import examples from "../examples.json";
import { presentApplication, presentContext } from "./present";
import { Application } from "./schema";

const route = {
  operationId: "listApplications",
  method: "get",
  path: "/financing/v1/applications",
  tags: ["Applications"],
  summary: "List applications",
  description:
    "The partner's applications, presented as by GET one, a page at a time: cursor paging with `after`/`before` (ids), `sort`, `filter`. `pagingInfo.nextPage`/`prevPage` are ready-made requests for the neighbouring pages.",
  security: bearerSecurity,
  request: () => ({ query: ApplicationsQuery() }),
  responses: () => ({
    200: jsonContent(pageOf(Application(), "ApplicationPage"), "A page of applications", examples.applicationPage),
    ...failures({ lookup: false }),
  }),
} satisfies RouteDefinition;

export const listApplications = openApiRoute(route, async (c) => {
  const { partnerId } = session(c);
  const collection = applicationsOf(partnerId);
  const request = orRefuse(await parsePageRequest(collection, c.req.url, c.req.valid("query")));
  const db = await c.var.db.orm();
  const page = orRefuse(await keysetPage(db, collection, applicationScope(partnerId, collection, request), request));
  const ctx = presentContext(c);
  const data = await Promise.all(page.rows.map((row) => presentApplication(aggregateOf(row), ctx)));
  return c.json({ data, pagingInfo: pagingInfo(new URL(c.req.url).pathname, request, page) }, 200);
});
