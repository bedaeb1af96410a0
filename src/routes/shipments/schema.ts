/** Schemas of shipments (CONTRACT 6b): what one send took out, and its tracking. */
import {
  MAX_CARRIER_LENGTH,
  MAX_TRACKING_NUMBER_LENGTH,
  MAX_TRACKING_URL_LENGTH,
} from "../../domain/shipment-tracking";
import { schema, z } from "../../lazy-schema";
import { ApplicationIdParam, DateOutput, DateTimeOutput, Money } from "../applications/schema";

export const ShipmentParams = schema(() =>
  ApplicationIdParam().extend({
    shipmentId: z
      .string()
      .max(64)
      .openapi({ param: { name: "shipmentId", in: "path" }, example: "01JD3Z9H1B6W4Q2C8X5M7N3P0R" }),
  }),
);

const Tracking = schema(() =>
  z
    .object({
      number: z.string(),
      carrier: z.string().optional(),
      url: z.string().optional().openapi({ format: "uri" }),
      addedAt: DateTimeOutput(),
    })
    .openapi("Tracking"),
);

export const Shipment = schema(() =>
  z
    .object({
      id: z.string(),
      reference: z.string().optional().openapi({ description: "Your own, as the send gave it (an invoice number)" }),
      items: z
        .array(
          z.object({
            code: z.string(),
            ean: z.string().optional(),
            name: z.string(),
            type: z.string(),
            quantity: z.number().int(),
            totalPrice: Money(),
          }),
        )
        .openapi({ description: "What it took out: the units sent, at their financed price" }),
      totalPrice: Money(),
      sentDate: DateOutput(),
      deliveryCarrier: z.object({ carrierId: z.string() }).optional(),
      tracking: z.array(Tracking()).openapi({ description: "In the order added; at most 10" }),
      createdAt: DateTimeOutput(),
    })
    .openapi("Shipment"),
);

export const TrackingRequest = schema(() =>
  z
    .object({
      number: z.string().min(1).max(MAX_TRACKING_NUMBER_LENGTH),
      carrier: z.string().min(1).max(MAX_CARRIER_LENGTH).optional(),
      url: z
        .string()
        .max(MAX_TRACKING_URL_LENGTH)
        .optional()
        .openapi({ format: "uri", description: "https, on a public host, port 443" }),
    })
    .openapi("TrackingRequest"),
);
