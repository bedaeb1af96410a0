/**
 * Shipments (CONTRACT 6b): what one send (or a deliver of goods not yet sent) took out, with the
 * partner's reference and the parcel's tracking, appendable after dispatch (shipment-tracking.ts).
 * Pure: no HTTP, no SQL.
 */
import { originsOf } from "./line-origins";
import type { Line } from "./order-lines";

export interface ShipmentItem {
  code: string;
  ean: string | null;
  name: string;
  type: string;
  quantity: number;
  totalPrice: { amount: number; currency: string };
}

export interface Tracking {
  number: string;
  carrier: string | null;
  url: string | null;
  addedAt: number;
}

export interface Shipment {
  id: string;
  /** The partner's own (an invoice or delivery note number). */
  reference: string | null;
  items: ShipmentItem[];
  totalPrice: { amount: number; currency: string };
  sentDate: string;
  deliveryCarrier: { carrierId: string } | null;
  tracking: Tracking[];
  createdAt: number;
  /**
   * The order lines it took out (the partner never sees line ids): settlement names the shipment of a
   * sale by them, also when the sale comes later, at delivery (settlement-entries.ts).
   */
  lineIds: string[];
}

/**
 * The lines whose units an operation sent: those it gave a sent date (a send, or a deliver of goods not
 * yet sent). A discount that follows returned goods (order-lines.ts `settleDiscounts`) leaves without
 * ever being sent, and is in no shipment.
 */
export function sentBy(before: readonly Line[], after: readonly Line[]): Line[] {
  const origins = originsOf(before, after);
  return after.filter((line) => line.sentDate !== null && origins.get(line.id)?.sentDate === null);
}

/**
 * The shipment of the lines an operation sent (`sentBy`), or none when it sent nothing (a deliver of
 * goods sent before). The send's tracking number is its first tracking entry, with the order's carrier.
 */
export function shipmentOf(
  sent: readonly Line[],
  request: { reference?: string | undefined; deliveryTrackingNumber?: string | undefined },
  order: { currency: string; deliveryCarrier: { carrierId: string } | null },
  ctx: { at: number; newId: () => string },
): Shipment | undefined {
  // The operation set one sent date on everything it sent.
  const sentDate = sent[0]?.sentDate;
  if (!sentDate) return undefined;
  const money = (amount: number) => ({ amount, currency: order.currency });
  const { deliveryTrackingNumber } = request;
  return {
    id: ctx.newId(),
    reference: request.reference ?? null,
    items: sent.map((l) => ({
      code: l.code,
      ean: l.ean,
      name: l.name,
      type: l.type,
      quantity: l.quantity,
      totalPrice: money(l.totalPriceAmount),
    })),
    totalPrice: money(sent.reduce((sum, l) => sum + l.totalPriceAmount, 0)),
    sentDate,
    deliveryCarrier: order.deliveryCarrier,
    tracking: deliveryTrackingNumber
      ? [
          {
            number: deliveryTrackingNumber,
            carrier: order.deliveryCarrier?.carrierId ?? null,
            url: null,
            addedAt: ctx.at,
          },
        ]
      : [],
    createdAt: ctx.at,
    lineIds: sent.map((l) => l.id),
  };
}
