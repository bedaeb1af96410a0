/**
 * Shipments (CONTRACT 6b): what one send (or a deliver of goods not yet sent) took out, with the
 * partner's reference and the parcel's tracking, appendable after dispatch. Pure: no HTTP, no SQL.
 */
import { originsOf } from "./line-origins";
import type { Line } from "./order-lines";
import { ok, type Problem, problem, type Result, refused } from "./result";
import { unsafeUrlReason } from "./url-safety";

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

export const MAX_TRACKING = 10;
export const MAX_TRACKING_NUMBER_LENGTH = 100;
export const MAX_CARRIER_LENGTH = 100;
export const MAX_TRACKING_URL_LENGTH = 2048;

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

export interface TrackingRequest {
  number: string;
  carrier?: string | undefined;
  url?: string | undefined;
}

/**
 * The shipment with tracking appended after dispatch, or why not. At most MAX_TRACKING entries (the
 * send's included): a parcel re-sent ten times is a case for support, not for more rows. A request
 * repeating an entry exactly (a retry) leaves the shipment as it is rather than using up a place. The
 * URL is shown to the partner and in the console as a link, so it passes the service's one URL rule
 * (url-safety.ts, deployed): https, no credentials, a public host.
 */
export function planTracking(shipment: Shipment, request: TrackingRequest, ctx: { at: number }): Result<Shipment> {
  const problems = trackingProblems(request);
  if (problems.length > 0) return refused(...problems);
  const entry: Tracking = {
    number: request.number,
    carrier: request.carrier ?? null,
    url: request.url ?? null,
    addedAt: ctx.at,
  };
  const repeated = shipment.tracking.some(
    (t) => t.number === entry.number && t.carrier === entry.carrier && t.url === entry.url,
  );
  if (repeated) return ok(shipment);
  if (shipment.tracking.length >= MAX_TRACKING) {
    return refused(
      problem("TRACKING_LIMIT_REACHED", `a shipment holds at most ${MAX_TRACKING} tracking entries`, "number"),
    );
  }
  return ok({ ...shipment, tracking: [...shipment.tracking, entry] });
}

function trackingProblems(request: TrackingRequest): Problem[] {
  const problems: Problem[] = [];
  const within = (value: string, max: number) => value.trim().length > 0 && value.length <= max;
  if (!within(request.number, MAX_TRACKING_NUMBER_LENGTH)) {
    problems.push(problem("INVALID_VALUE", `must be 1 to ${MAX_TRACKING_NUMBER_LENGTH} characters`, "number"));
  }
  if (request.carrier !== undefined && !within(request.carrier, MAX_CARRIER_LENGTH)) {
    problems.push(problem("INVALID_VALUE", `must be 1 to ${MAX_CARRIER_LENGTH} characters`, "carrier"));
  }
  if (request.url !== undefined) {
    const reason =
      request.url.length > MAX_TRACKING_URL_LENGTH
        ? `must be at most ${MAX_TRACKING_URL_LENGTH} characters`
        : unsafeUrlReason(request.url, { requireHttps: true, allowedPorts: [] });
    if (reason) problems.push(problem("INVALID_VALUE", reason, "url"));
  }
  return problems;
}
