import {
  bearerSecurity,
  failures,
  IdempotencyHeaders,
  jsonBodyOf,
  jsonContent,
  openApiRoute,
  type Refusals,
  type RouteDefinition,
  withRefusals,
} from "../../api";
import { session } from "../../auth/require-session";
import { ApiError } from "../../http/errors";
import { addTracking } from "../../settlement/tracking";
import examples from "../examples.json";
import { presentShipment } from "./present";
import { Shipment, ShipmentParams, TrackingRequest } from "./schema";

const REFUSALS = {
  TRACKING_LIMIT_REACHED: "the shipment holds 10 tracking entries",
} satisfies Refusals;

const route = {
  operationId: "addShipmentTracking",
  method: "post",
  path: "/financing/v1/applications/{applicationId}/shipments/{shipmentId}/tracking",
  tags: ["Shipments"],
  summary: "Add tracking to a shipment",
  description: withRefusals(
    "Appends a tracking entry after dispatch (a parcel split, a carrier's own number): `number`, and optionally `carrier` and an https `url` on a public host. The same entry again changes nothing. Answers the shipment.",
    REFUSALS,
  ),
  security: bearerSecurity,
  request: () => ({
    params: ShipmentParams(),
    headers: IdempotencyHeaders(),
    body: jsonBodyOf(TrackingRequest(), examples.trackingRequest),
  }),
  responses: () => ({
    200: jsonContent(Shipment(), "The shipment with its tracking", examples.trackedShipment),
    ...failures({ body: true, idempotent: true, guarded: true, invalid: ["INVALID_VALUE"], refusals: REFUSALS }),
  }),
} satisfies RouteDefinition;

export const addShipmentTracking = openApiRoute(route, async (c) => {
  const { applicationId, shipmentId } = c.req.valid("param");
  const result = await addTracking(
    await c.var.db.orm(),
    c.var.db.client,
    c.var.config.STORAGE_QUOTA_BYTES,
    { partnerId: session(c).partnerId, applicationId, shipmentId },
    c.req.valid("json"),
  );
  if (result.outcome === "not_found") throw ApiError.notFound("shipment");
  if (result.outcome === "refused") throw ApiError.of(result.problems);
  return c.json(presentShipment(result.shipment, c.var.config.SERVICE_TIMEZONE), 200);
});
