import { formatDateTime } from "../../clock";
import type { ShipmentRow } from "../../db/schema";
import type { Infer } from "../../lazy-schema";
import type { Shipment } from "./schema";

type ShipmentView = Infer<typeof Shipment>;

/** A shipment as the partner reads it: never its line ids (they are ours). */
export function presentShipment(row: ShipmentRow, timeZone: string): ShipmentView {
  return {
    id: row.id,
    ...(row.reference === null ? {} : { reference: row.reference }),
    items: row.items.map((i) => ({
      code: i.code,
      ...(i.ean === null ? {} : { ean: i.ean }),
      name: i.name,
      type: i.type,
      quantity: i.quantity,
      totalPrice: i.totalPrice,
    })),
    totalPrice: { amount: row.totalAmount, currency: row.currency },
    sentDate: row.sentDate,
    ...(row.deliveryCarrier === null ? {} : { deliveryCarrier: { carrierId: row.deliveryCarrier } }),
    tracking: row.tracking.map((t) => ({
      number: t.number,
      ...(t.carrier === null ? {} : { carrier: t.carrier }),
      ...(t.url === null ? {} : { url: t.url }),
      addedAt: formatDateTime(t.addedAt, timeZone),
    })),
    createdAt: formatDateTime(row.createdAt, timeZone),
  };
}
