import { bearerSecurity, failures, jsonContent, openApiRoute, type RouteDefinition } from "../../api";
import { session } from "../../auth/require-session";
import { keysetPage } from "../../collections/keyset";
import { pagingInfo } from "../../collections/links";
import { PageQuery, pageOf, parsePageRequest } from "../../collections/query";
import { applicationShipments, shipmentsCollection } from "../../collections/settlement";
import { ownsApplication } from "../../db/applications";
import { ApiError, orRefuse } from "../../http/errors";
import { ApplicationIdParam } from "../applications/schema";
import examples from "../examples.json";
import { presentShipment } from "./present";
import { Shipment } from "./schema";

const route = {
  operationId: "listShipments",
  method: "get",
  path: "/financing/v1/applications/{applicationId}/shipments",
  tags: ["Shipments"],
  summary: "List shipments",
  description:
    "Every shipment of the application, in the order they went out: each send made one, and so did a deliver of items not sent before. Paged like every collection; a page holds fewer than `limit` when its shipments are large (`itemsPerPage` says how many).",
  security: bearerSecurity,
  request: () => ({ params: ApplicationIdParam(), query: PageQuery() }),
  responses: () => ({
    200: jsonContent(pageOf(Shipment(), "ShipmentPage"), "A page of shipments", examples.shipmentPage),
    ...failures(),
  }),
} satisfies RouteDefinition;

export const listShipments = openApiRoute(route, async (c) => {
  const { applicationId } = c.req.valid("param");
  const db = await c.var.db.orm();
  if (!(await ownsApplication(db, session(c).partnerId, applicationId))) throw ApiError.notFound("application");
  const request = orRefuse(await parsePageRequest(shipmentsCollection, c.req.url, c.req.valid("query")));
  const page = orRefuse(await keysetPage(db, shipmentsCollection, applicationShipments(applicationId), request));
  const timeZone = c.var.config.SERVICE_TIMEZONE;
  return c.json(
    {
      data: page.rows.map((row) => presentShipment(row, timeZone)),
      pagingInfo: pagingInfo(new URL(c.req.url).pathname, request, page),
    },
    200,
  );
});
