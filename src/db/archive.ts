/**
 * Finished applications move out of D1 into the ARCHIVE bucket (R2), one JSON object each, and come back
 * when a partner acts on one again. The rule of when is the domain's (src/domain/archive.ts); here is how,
 * beside the requests being served.
 *
 * Archiving one application (a task of the cron, src/scheduled.ts, a bounded number a run):
 * 1. its rows are read: the application, its lines, events, attempts, refunds, shipments, settlement
 *    entries, documents' metadata and variable symbols, and the application as a read by id presents it;
 * 2. the object is put under a key naming the version the archive writes (`archiveKey`): a run that
 *    read an older version and lost the race puts its object under another key, never over the one a
 *    tombstone names;
 * 3. one batch makes the row a tombstone, guarded as every write (`WHERE version = ?` and write_guard)
 *    and guarded again on what the rule read besides the row (no event being delivered, every entry
 *    paid), and deletes the lines, events and attempts. D1 keeps the refunds, shipments, settlement
 *    entries (payouts and their reports name them), documents' metadata (downloads keep working) and
 *    variable symbols: small, and named by what stays.
 * A run that stops after the put leaves the application live: the next run puts the same object again
 * under the same key. A batch refused takes its object back.
 *
 * Restoring (the first write to an archived application, src/applications/change-application.ts): one
 * guarded batch puts the row back as it was (one version on) and inserts the lines, events and attempts
 * back; then the write proceeds on the live application, through the one write path. Its usage is
 * unchanged throughout: the partner's data is the same wherever it is kept (./storage.ts).
 */
import {
  archivable,
  FINISHED_READY_REASONS,
  FINISHED_STATES,
  TOMBSTONE,
  UNFINISHED_LINE_STATES,
} from "../domain/archive";
import { log } from "../log";
import { loadAggregate, loadPresented } from "./application-reads";
import type { Aggregate, PresentedAggregate } from "./applications";
import { commit, WRITE_GUARD, WriteConflict } from "./write-batch";
import { updateWhere } from "./writes";

/** Applications archived per run: each is two batches and a put, beside the cron's other tasks. */
export const ARCHIVED_PER_RUN = 50;

/** The object of an application's archive, named by the version its tombstone has. */
export const archiveKey = (partnerId: string, applicationId: string, version: number): string =>
  `applications/${partnerId}/${applicationId}/v${version}.json`;

type Row = Record<string, unknown>;

/** What an archive object holds (format 1). */
export interface ArchivedApplication {
  format: 1;
  archivedAt: number;
  /** The application as a read by id presents it: what a read of the archived application answers. */
  presented: PresentedAggregate;
  /** The application as a write reads it: what the console's page and the gateway's show of it. */
  aggregate: Aggregate;
  /** Its rows as D1 held them (column names, stored values), table by table: what a restore writes back. */
  rows: Record<ArchivedTable, Row[]>;
}

/** The tables of the object, in the order they are read; those a restore writes back are RESTORED. */
const TABLES = [
  "applications",
  "order_lines",
  "events",
  "notification_attempts",
  "refunds",
  "shipments",
  "settlement_entries",
  "documents",
  "application_variable_symbols",
] as const;
type ArchivedTable = (typeof TABLES)[number];

/** The tables whose rows the archive deletes from D1 (children after parents: attempts name events). */
const RESTORED = ["order_lines", "events", "notification_attempts"] as const;

const list = (values: readonly string[]) => values.map((v) => `'${v}'`).join(", ");

/**
 * The live applications the domain's rule would archive at `?1`, oldest idle first: through their partial
 * index (schema: applications_archivable_idx, whose condition this repeats so that SQLite uses it), with
 * what the rule reads beside the row as conditions, so that one waiting on something is passed over
 * rather than taken again every run.
 */
export const CANDIDATES = `SELECT a.id FROM applications a
  WHERE a.archive_key IS NULL AND a.next_due_at IS NULL
    AND (a.state IN (${list(FINISHED_STATES)}) OR a.state_reason IN (${list(FINISHED_READY_REASONS)}))
    AND a.idle_since <= ?1
    AND (a.state IN (${list(FINISHED_STATES)})
      OR NOT EXISTS (SELECT 1 FROM order_lines l WHERE l.application_id = a.id AND l.state IN (${list(UNFINISHED_LINE_STATES)})))
    AND NOT EXISTS (SELECT 1 FROM events e WHERE e.application_id = a.id AND e.status = 'PENDING')
    AND NOT EXISTS (${unpaid("a.id")})
  ORDER BY a.idle_since, a.id LIMIT ?2`;

/** The application's settlement entries not yet in a PAID payout whose applications were told. */
function unpaid(applicationId: string): string {
  return `SELECT 1 FROM settlement_entries s LEFT JOIN payouts p ON p.id = s.payout_id
    WHERE s.application_id = ${applicationId}
      AND (p.id IS NULL OR p.status <> 'PAID' OR p.applications_told_at IS NULL)`;
}

/** Fails the archive's batch (write_guard's CHECK) when the application waits on something after all. */
const STILL_IDLE = `INSERT OR REPLACE INTO write_guard (id, ok) VALUES (1,
  NOT EXISTS (SELECT 1 FROM events WHERE application_id = ?1 AND status = 'PENDING')
  AND NOT EXISTS (${unpaid("?1")}))`;

/** Each table's rows of one application. */
const READS: Record<ArchivedTable, string> = {
  applications: "SELECT * FROM applications WHERE id = ?1",
  order_lines: "SELECT * FROM order_lines WHERE application_id = ?1 ORDER BY id",
  events: "SELECT * FROM events WHERE application_id = ?1 ORDER BY id",
  notification_attempts:
    "SELECT n.* FROM notification_attempts n JOIN events e ON e.id = n.event_id WHERE e.application_id = ?1 ORDER BY n.id",
  refunds: "SELECT * FROM refunds WHERE application_id = ?1 ORDER BY id",
  shipments: "SELECT * FROM shipments WHERE application_id = ?1 ORDER BY id",
  settlement_entries: "SELECT * FROM settlement_entries WHERE application_id = ?1 ORDER BY id",
  // Metadata only: the files stay in the DOCUMENTS bucket, and the rows in D1.
  documents:
    "SELECT id, application_id, type, filename, mime_type, description, variable_symbol, size, created_at, file_key FROM documents WHERE application_id = ?1 ORDER BY id",
  application_variable_symbols: "SELECT * FROM application_variable_symbols WHERE application_id = ?1",
};

export interface ArchiveRun {
  archived: number;
  /** Applications are left to archive for the next run. */
  more: boolean;
}

/**
 * The cron's task: archives up to `limit` applications the rule archives at `at` with the age
 * `afterMs`, from one database into `archive`. Answers how many.
 */
export async function archiveFinished(
  client: D1Database,
  archive: R2Bucket,
  at: number,
  afterMs: number,
  limit = ARCHIVED_PER_RUN,
): Promise<ArchiveRun> {
  const { results } = await client
    .prepare(CANDIDATES)
    .bind(at - afterMs, limit + 1)
    .run<{ id: string }>();
  let archived = 0;
  for (const { id } of results.slice(0, limit)) {
    if (await archiveOne(client, archive, id, at, afterMs)) archived++;
  }
  return { archived, more: results.length > limit };
}

/** Archives one application; false when the rule no longer does (it changed since), or a write won. */
async function archiveOne(
  client: D1Database,
  archive: R2Bucket,
  applicationId: string,
  at: number,
  afterMs: number,
): Promise<boolean> {
  const read = await client.batch([
    ...TABLES.map((table) => client.prepare(READS[table]).bind(applicationId)),
    client.prepare(`SELECT COUNT(*) AS n FROM (${unpaid("?1")})`).bind(applicationId),
  ]);
  const rows = Object.fromEntries(TABLES.map((table, i) => [table, read[i]!.results as Row[]])) as Record<
    ArchivedTable,
    Row[]
  >;
  const [{ n: unpaidEntries }] = read[TABLES.length]!.results as [{ n: number }];
  const app = rows.applications[0];
  if (!app || app.archive_key !== null) return false;
  const facts = {
    state: app.state as never,
    stateReason: app.state_reason as never,
    lineStates: rows.order_lines.map((l) => String(l.state)),
    nextDueAt: app.next_due_at as number | null,
    idleSince: app.idle_since as number,
    pendingEvents: rows.events.filter((e) => e.status === "PENDING").length,
    unpaidEntries,
  };
  if (!archivable(facts, at, afterMs)) return false;
  const partnerId = String(app.partner_id);
  const version = Number(app.version);
  const [presented, aggregate] = await Promise.all([
    loadPresented(client, partnerId, applicationId),
    loadAggregate(client, partnerId, applicationId),
  ]);
  if (!presented || !aggregate) return false;
  const key = archiveKey(partnerId, applicationId, version + 1);
  const object: ArchivedApplication = { format: 1, archivedAt: at, presented, aggregate, rows };
  await archive.put(key, JSON.stringify(object), { httpMetadata: { contentType: "application/json" } });
  try {
    await commit(client, [
      updateWhere(
        client,
        "applications",
        { ...(TOMBSTONE as object), archiveKey: key, version: version + 1 },
        { id: applicationId, version },
      ),
      client.prepare(WRITE_GUARD),
      client.prepare(STILL_IDLE).bind(applicationId),
      ...[...RESTORED].reverse().map((table) => deleteOf(client, table, applicationId)),
    ]);
    return true;
  } catch (error) {
    if (!(error instanceof WriteConflict)) throw error;
    await archive.delete(key).catch(() => log("warn", "archive object of a refused archive left", { key }));
    return false;
  }
}

/** The delete of one application's rows of a table the archive moves. */
function deleteOf(client: D1Database, table: (typeof RESTORED)[number], applicationId: string) {
  const sql =
    table === "notification_attempts"
      ? "DELETE FROM notification_attempts WHERE event_id IN (SELECT id FROM events WHERE application_id = ?1)"
      : `DELETE FROM ${table} WHERE application_id = ?1`;
  return client.prepare(sql).bind(applicationId);
}

/** The archived application's object; it exists while a tombstone names it. */
async function archived(archive: R2Bucket, key: string): Promise<ArchivedApplication> {
  const object = await archive.get(key);
  // Never expected: a tombstone is written only after its object, and no object a tombstone names is deleted.
  if (!object) throw new Error(`archived application ${key} is missing from the ARCHIVE bucket`);
  return await object.json<ArchivedApplication>();
}

/**
 * What a read by id presents: the application as read from D1, or, once archived, as the object holds
 * it (the same body as before: the object holds what the same read answered then).
 */
export async function presentedOrArchived(
  archive: R2Bucket,
  aggregate: PresentedAggregate,
): Promise<PresentedAggregate> {
  const key = aggregate.application.archiveKey;
  return key === null ? aggregate : (await archived(archive, key)).presented;
}

/**
 * The application as a write reads it, for pages that only show it (the console's, the gateway's): as
 * D1 holds it, or, once archived, as it was then. A write goes through restoreArchived instead.
 */
export async function aggregateOrArchived(archive: R2Bucket, aggregate: Aggregate): Promise<Aggregate> {
  const key = aggregate.application.archiveKey;
  return key === null ? aggregate : (await archived(archive, key)).aggregate;
}

/** A column name of our own rows, checked before it is written into SQL. */
const columnName = (name: string) => {
  if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`unexpected column ${name} in an archived row`);
  return `"${name}"`;
};

/** `json_extract(?n, '$.column')`: a stored value as the object holds it (JSON text columns as strings). */
const extract = (parameter: string, name: string) => `json_extract(${parameter}, '$.${name}')`;

/**
 * Brings the archived application back into D1 at `at`, as it was before the archive, one version past
 * its tombstone. False when another restore did it first (the tombstone's version moved on): either way,
 * the application is live once this answers.
 */
export async function restoreArchived(
  client: D1Database,
  archive: R2Bucket,
  tombstone: { id: string; version: number; archiveKey: string | null },
  at: number,
): Promise<boolean> {
  const key = tombstone.archiveKey;
  if (key === null) return false;
  const { rows } = await archived(archive, key);
  const row = rows.applications[0]!;
  // Every column as it was but the guard's (the version moves on, the key goes) and the archive's age,
  // which starts again: the partner is acting on it, and the cron must not take it back before the
  // write that brought it back lands.
  const columns = Object.keys(row).filter((c) => !["id", "version", "archive_key", "idle_since"].includes(c));
  const restore = client
    .prepare(
      `UPDATE applications SET ${columns.map((c) => `${columnName(c)} = ${extract("?1", c)}`).join(", ")},
         version = ?2 + 1, archive_key = NULL, idle_since = ?5
       WHERE id = ?3 AND version = ?2 AND archive_key = ?4`,
    )
    .bind(JSON.stringify(row), tombstone.version, tombstone.id, key, at);
  try {
    await commit(client, [
      restore,
      client.prepare(WRITE_GUARD),
      ...RESTORED.flatMap((table) => insertBack(client, table, rows[table] ?? [])),
    ]);
  } catch (error) {
    if (error instanceof WriteConflict) return false;
    throw error;
  }
  // The object is no longer named by anything: a failure to delete it leaves garbage, not a wrong answer.
  await archive.delete(key).catch(() => log("warn", "archive object of a restored application left", { key }));
  return true;
}

/** Rows a batch can insert with one bound value each: one statement per chunk, as a JSON array. */
const ROWS_PER_INSERT = 200;

/** Inserts the archived rows of one table back, each column as it was stored. */
function insertBack(client: D1Database, table: (typeof RESTORED)[number], rows: Row[]): D1PreparedStatement[] {
  if (rows.length === 0) return [];
  const columns = Object.keys(rows[0]!);
  const sql = `INSERT INTO ${table} (${columns.map(columnName).join(", ")})
    SELECT ${columns.map((c) => extract("value", c)).join(", ")} FROM json_each(?1)`;
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    statements.push(client.prepare(sql).bind(JSON.stringify(rows.slice(i, i + ROWS_PER_INSERT))));
  }
  return statements;
}
