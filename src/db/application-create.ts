/**
 * Storing a new application: its row, lines and first event as one batch, unless it duplicates a
 * recent one (spec rule 1). Without Drizzle: the batch is bound as every write is (./writes.ts), the
 * rare collision's lookup is a statement the build wrote (./precompiled.ts).
 */

import { STATEMENTS } from "../../generated/statements";
import type { CreatePlan } from "../domain/application-operations";
import { withinDuplicateWindow } from "../domain/duplicates";
import type { Line } from "../domain/order-lines";
import type { EventRecord } from "../domain/plan";
import { chunks, eventRow, lineRow } from "./application-write";
import type { Aggregate } from "./applications";
import { readFirst } from "./precompiled";
import type { ApplicationRow } from "./schema";
import { countUsage, QUOTA_CHECK, rowBytes, StorageQuotaExceeded } from "./storage";
import { isConstraintError } from "./write-batch";
import { insertRows, updateWhere } from "./writes";

/** The stored row of a new application: the plan's application with its partner and the columns lists filter on. */
function newApplicationRow(plan: CreatePlan, partnerId: string, fingerprint: string): Aggregate["application"] {
  const app = plan.application;
  return {
    ...app,
    partnerId,
    orderNumber: app.orderDetails.number,
    customerEmail: app.customer.email.toLowerCase(),
    variableSymbols: app.orderDetails.variableSymbols.join(","),
    approvedAmount: null,
    refundedAmount: 0,
    decisionReasons: null,
    decidedAt: null,
    acceptedOffer: null,
    reminderAt: null,
    reviewAt: null,
    reviewOutcome: null,
    cancelReason: null,
    customCancelReason: null,
    duplicateFingerprint: fingerprint,
    version: 0,
    updatedAt: app.createdAt,
    idleSince: app.createdAt,
    archiveKey: null,
  };
}

/** Creates finish in this many rounds: a collision with an expired holder is released and tried again. */
const CREATE_ROUNDS = 3;

/**
 * Stores a new application, its lines and first event, as one batch, unless it is a duplicate (spec
 * rule 1): the unique index on (partner, fingerprint) makes concurrent identical creates collide in the
 * database instead of racing. On a collision the holder of the fingerprint is looked at: inside the
 * duplicate window it is the answer; older, it leaves the window (releases the fingerprint) and the
 * insert is tried again. So the usual create is one batch, and only the rare collision pays more round
 * trips. `audited`: the audit log's statements of the create, which land with it or not at all.
 * StorageQuotaExceeded when the partner's storage is used up.
 */
export async function createApplication(
  client: D1Database,
  plan: CreatePlan,
  owner: { partnerId: string; fingerprint: string; quota: number },
  audited: readonly D1PreparedStatement[] = [],
): Promise<
  { outcome: "created"; row: Aggregate["application"] } | { outcome: "duplicate"; id: string } | { outcome: "conflict" }
> {
  const row = newApplicationRow(plan, owner.partnerId, owner.fingerprint);
  for (let round = 1; round <= CREATE_ROUNDS; round++) {
    if ((await insertApplication(client, row, plan.lines, plan.event, owner.quota, audited)) === "created") {
      return { outcome: "created", row };
    }
    const twin = await fingerprintHolder(client, owner.partnerId, owner.fingerprint);
    if (twin && withinDuplicateWindow(twin.createdAt, row.createdAt)) return { outcome: "duplicate", id: twin.id };
    if (twin) await releaseFingerprint(client, twin.id, owner.fingerprint);
  }
  return { outcome: "conflict" };
}

/** A new application with its lines, first event and audit entry, as one batch (see `createApplication`). */
async function insertApplication(
  client: D1Database,
  application: ApplicationRow,
  lines: readonly Line[],
  event: EventRecord,
  quota: number,
  audited: readonly D1PreparedStatement[],
): Promise<"created" | "duplicate"> {
  const rows = lines.map((l) => lineRow(application.id, l, application.createdAt));
  // The lookup rows the database's trigger adds, one per distinct symbol (migrations/0008_variable_symbols_by_partner.sql), count too.
  const symbols = new Set(application.variableSymbols ? application.variableSymbols.split(",") : []);
  const bytes = [...symbols].reduce(
    (sum, variableSymbol) =>
      sum + rowBytes({ partnerId: application.partnerId, variableSymbol, applicationId: application.id }),
    rows.reduce((sum, row) => sum + rowBytes(row), rowBytes(application)),
  );
  try {
    await client.batch([
      insertRows(client, "applications", [application]),
      ...chunks("orderLines", rows).map((chunk) => insertRows(client, "orderLines", chunk)),
      insertRows(client, "events", [eventRow(application, event)]),
      countUsage(client, application.partnerId, bytes, quota),
      ...audited,
    ]);
    return "created";
  } catch (error) {
    if (isConstraintError(error, "applications.duplicate_fingerprint")) return "duplicate";
    if (isConstraintError(error, QUOTA_CHECK)) throw new StorageQuotaExceeded();
    throw error;
  }
}

/** The application holding a duplicate fingerprint of the partner, if any. */
async function fingerprintHolder(client: D1Database, partnerId: string, fingerprint: string) {
  return readFirst(client, STATEMENTS.fingerprintHolder, { partnerId, fingerprint });
}

/** The application leaves the duplicate window: its fingerprint is free for a new application. */
async function releaseFingerprint(client: D1Database, applicationId: string, fingerprint: string): Promise<void> {
  await updateWhere(
    client,
    "applications",
    { duplicateFingerprint: null },
    { id: applicationId, duplicateFingerprint: fingerprint },
  ).run();
}
