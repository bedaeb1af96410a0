/**
 * Tracking appended to a shipment after dispatch (CONTRACT 6b). Apart from shipments.ts, which every
 * send and deliver plans with, because its URL rule (url-safety.ts) is the only one they would not use.
 * Pure: no HTTP, no SQL.
 */
import { ok, type Problem, problem, type Result, refused } from "./result";
import type { Shipment, Tracking } from "./shipments";
import { unsafeUrlReason } from "./url-safety";

export const MAX_TRACKING = 10;
export const MAX_TRACKING_NUMBER_LENGTH = 100;
export const MAX_CARRIER_LENGTH = 100;
export const MAX_TRACKING_URL_LENGTH = 2048;

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
