/**
 * Appending to the audit log (src/domain/audit.ts): one row, and its bytes counted in the partner's
 * `audit_bytes` (held against its storage quota with what its other rows hold: ./storage.ts), in one batch: the write's own, for a change of an application (its entry lands with
 * it or not at all: src/applications/change-application.ts), else a batch of their own. Counted without the quota's check: by the time an entry is written its
 * work is done (or refused), and the record of it must be kept; a write that would pass the quota was
 * refused by its own batch. Bound without Drizzle, so recording an API write loads none (its columns are
 * the schema's: test/db/audit-events.test.ts reads the row back through Drizzle).
 */
import { type AuditEntry, type AuditRecord, auditRecord } from "../domain/audit";
import { newId } from "../ids";
import { countAuditBytes, rowBytes } from "./storage";

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

/** The row of the entry, and the statements that append it to the partner's log, for a batch. */
export function auditStatements(client: D1Database, partnerId: string, entry: AuditEntry, at: number) {
  const row = auditRecord(partnerId, entry, at, newId(at));
  const statements = [
    client.prepare(INSERT).bind(...KEYS.map((key) => row[key])),
    countAuditBytes(client, partnerId, rowBytes(row)),
  ];
  return { row, statements };
}

/** Appends the entry to the partner's log in a batch of its own; answers the row written. */
export async function recordAudit(
  client: D1Database,
  partnerId: string,
  entry: AuditEntry,
  at: number,
): Promise<AuditRecord> {
  const { row, statements } = auditStatements(client, partnerId, entry, at);
  await client.batch(statements);
  return row;
}
