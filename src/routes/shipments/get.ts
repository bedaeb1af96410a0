import { bearerSecurity, failures, jsonContent, openApiRoute, type RouteDefinition } from "../../api";
import { session } from "../../auth/require-session";
import { findShipment } from "../../db/settlement";
import { ApiError } from "../../http/errors";
import examples from "../examples.json";
import { presentShipment } from "./present";
import { Shipment, ShipmentParams } from "./schema";

const route = {
  operationId: "getShipment",
  method: "get",
  path: "/financing/v1/applications/{applicationId}/shipments/{shipmentId}",
  tags: ["Shipments"],
  summary: "Read a shipment",
  description: "What one send took out: the units, their financed price, your reference and the tracking so far.",
  security: bearerSecurity,
  request: () => ({ params: ShipmentParams() }),
  responses: () => ({ 200: jsonContent(Shipment(), "The shipment", examples.shipment), ...failures() }),
} satisfies RouteDefinition;

export const getShipment = openApiRoute(route, async (c) => {
  const { applicationId, shipmentId } = c.req.valid("param");
  const row = await findShipment(await c.var.db.orm(), session(c).partnerId, applicationId, shipmentId);
  if (!row) throw ApiError.notFound("shipment");
  return c.json(presentShipment(row, c.var.config.SERVICE_TIMEZONE), 200);
});
