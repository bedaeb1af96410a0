/**
 * Appending to the audit log (src/domain/audit.ts): one row, and its bytes counted in the partner's
 * storage usage, in one batch. Counted without the quota's check: by the time an entry is written its
 * work is done (or refused), and the record of it must be kept; a write that would pass the quota was
 * refused by its own batch. Bound without Drizzle, so recording an API write loads none (its columns are
 * the schema's: test/db/audit-events.test.ts reads the row back through Drizzle).
 */
import { type AuditEntry, type AuditRecord, auditRecord } from "../domain/audit";
import { newId } from "../ids";
import { countUsage, rowBytes } from "./storage";

const COLUMNS = {
  id: "id",
  partnerId: "partner_id",
  occurredAt: "occurred_at",
  source: "source",
  actorType: "actor_type",
  actorId: "actor_id",
  actorName: "actor_name",
  operation: "operation",
  applicationId: "application_id",
  amount: "amount",
  currency: "currency",
  reason: "reason",
  subject: "subject",
  address: "address",
  outcome: "outcome",
  code: "code",
} as const satisfies Record<keyof AuditRecord, string>;

const KEYS = Object.keys(COLUMNS) as (keyof AuditRecord)[];
const INSERT = `INSERT INTO audit_events (${Object.values(COLUMNS).join(", ")}) VALUES (${KEYS.map(() => "?").join(", ")})`;

/** Appends the entry to the partner's log; answers the row written. */
export async function recordAudit(
  client: D1Database,
  partnerId: string,
  entry: AuditEntry,
  at: number,
): Promise<AuditRecord> {
  const row = auditRecord(partnerId, entry, at, newId(at));
  await client.batch([
    client.prepare(INSERT).bind(...KEYS.map((key) => row[key])),
    countUsage(client, partnerId, rowBytes(row), null),
  ]);
  return row;
}
