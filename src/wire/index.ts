/**
 * The wire profiles (CONTRACT 6c): one mapping at the edge between this API's shapes and a profile's.
 * Routes, handlers, plans and presenters know only ours. For a partner of another profile, its requests
 * are read into ours before they are validated (src/api/wire.ts), and its answers, errors (src/app.ts)
 * and notifications (src/notifications/delivery.ts) are written from ours into the profile's, here.
 * A DEFAULT partner's traffic never loads a profile: its shapes are the API's own.
 */
import type { WireProfile } from "../domain/wire-profile";

/** An error body as the API writes it (src/http/errors.ts, CONTRACT 2). */
export interface OurError {
  error: string;
  error_description: string;
  requestId: string;
  errors?: { code: string; message: string; severity: string; attribute?: string }[];
}

/** A notification body as the API writes it (CONTRACT 6). */
export interface OurNotification {
  id: string;
  state: string;
  stateReason: string;
  [field: string]: unknown;
}

/** What a profile maps: JSON values in, JSON values out. */
export interface Wire {
  /** A request body of the operation, in the profile's shapes, as this API's (before it is validated). */
  request(operationId: string, body: unknown): unknown;
  /** A successful answer of the operation, as the profile writes it; `requestId` names the request. */
  answer(operationId: string, body: unknown, requestId: string): unknown;
  error(body: OurError): unknown;
  notification(body: OurNotification): unknown;
}

const LOADERS: Record<Exclude<WireProfile, "DEFAULT">, () => Promise<Wire>> = {
  SKIP_PAY: async () => (await import("./skip-pay")).skipPay,
};

const loaded = new Map<WireProfile, Promise<Wire>>();

/** The profile's mapping, loaded with its first use; undefined for DEFAULT (nothing to map). */
export function wireOf(profile: WireProfile): Promise<Wire> | undefined {
  if (profile === "DEFAULT") return undefined;
  let wire = loaded.get(profile);
  if (!wire) {
    wire = LOADERS[profile]();
    loaded.set(profile, wire);
  }
  return wire;
}
