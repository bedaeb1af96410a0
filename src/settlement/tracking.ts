/**
 * Tracking added to a shipment after dispatch (CONTRACT 6b), for the partner API and the console alike:
 * load the shipment, let the domain decide (src/domain/shipments.ts `planTracking`), write it guarded;
 * a write that lost a race to another append plans again on what that one left.
 */
import { CONCURRENT_MODIFICATION } from "../applications/change-application";
import { now } from "../clock";
import type { Database } from "../db/client";
import type { ShipmentRow } from "../db/schema";
import { findShipment, shipmentOfRow, writeTracking } from "../db/settlement";
import { STORAGE_QUOTA_PROBLEM, StorageQuotaExceeded } from "../db/storage";
import { WriteConflict } from "../db/write-batch";
import type { Problem } from "../domain/result";
import { planTracking, type TrackingRequest } from "../domain/shipment-tracking";

export type Tracked =
  | { outcome: "added"; shipment: ShipmentRow }
  | { outcome: "refused"; problems: Problem[] }
  | { outcome: "not_found" };

/** Rounds before giving up to racing appends (each round some racer wins). */
const ROUNDS = 10;

export async function addTracking(
  db: Database,
  client: D1Database,
  storageQuota: number,
  shipment: { partnerId: string; applicationId: string; shipmentId: string },
  request: TrackingRequest,
): Promise<Tracked> {
  for (let round = 1; ; round++) {
    const row = await findShipment(db, shipment.partnerId, shipment.applicationId, shipment.shipmentId);
    if (!row) return { outcome: "not_found" };
    const planned = planTracking(shipmentOfRow(row), request, { at: now() });
    if (!planned.ok) return { outcome: "refused", problems: planned.problems };
    const { tracking } = planned.value;
    // The same entry again (a retry): the shipment as it is.
    if (tracking.length === row.tracking.length) return { outcome: "added", shipment: row };
    try {
      await writeTracking(client, row, tracking, storageQuota);
      return { outcome: "added", shipment: { ...row, tracking } };
    } catch (error) {
      if (error instanceof StorageQuotaExceeded) return { outcome: "refused", problems: [STORAGE_QUOTA_PROBLEM] };
      if (!(error instanceof WriteConflict)) throw error;
      if (round >= ROUNDS) return { outcome: "refused", problems: [CONCURRENT_MODIFICATION] };
    }
  }
}
