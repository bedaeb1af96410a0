/**
 * Moving one partner from its shard to another (src/db/shards.ts; "Shards" in docs/operations.md and
 * docs/scaling.md): copy its rows while it works, freeze its writes, copy what changed, switch the
 * directory, keep a forwarding mark on the old shard, and delete what it left there. Plain D1 work over
 * the bindings given, so that the Worker (its cron, the tests) and the operator's local command run the
 * same code; what else names the old shard (the sessions) is the caller's `switched`.
 *
 * The freeze is the mark of `partner_moves` (src/db/schema.ts): the triggers of migration 0018 refuse
 * every write of the partner on the old shard while it is there, with a message answered 503 with
 * Retry-After (src/transient.ts). A write that committed before the mark is in the last copy; none after
 * it can commit. So nothing answered success is lost, and nothing is answered but success or "retry".
 */
import { getTableConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";
import {
  applications,
  applicationVariableSymbols,
  auditEvents,
  consolePeople,
  documents,
  events,
  idempotencyKeys,
  notificationAttempts,
  orderLines,
  partners,
  payoutEntries,
  payouts,
  refunds,
  settlementEntries,
  shipments,
} from "./schema";
import { isConstraintError } from "./write-batch";

const ITS_APPLICATIONS = "application_id IN (SELECT id FROM applications WHERE partner_id = ?1)";

/**
 * Every table holding rows of one partner on its shard, parents before children (the order of copying;
 * deleting goes backwards), each with the condition that finds the partner's rows (`?1`: its id).
 * test/db/partner-move.test.ts fails when the schema has a table in neither this list nor NOT_MOVED.
 */
export const PARTNER_TABLES: readonly { table: SQLiteTable; where: string; appendOnly?: boolean }[] = [
  { table: partners, where: "id = ?1" },
  { table: consolePeople, where: "partner_id = ?1" },
  // Never updated: a trigger of migration 0014 refuses it, so a row copied once is left as it is.
  { table: auditEvents, where: "partner_id = ?1", appendOnly: true },
  { table: applications, where: "partner_id = ?1" },
  { table: applicationVariableSymbols, where: "partner_id = ?1" },
  { table: orderLines, where: ITS_APPLICATIONS },
  { table: documents, where: ITS_APPLICATIONS },
  { table: refunds, where: ITS_APPLICATIONS },
  { table: shipments, where: "partner_id = ?1" },
  { table: settlementEntries, where: "partner_id = ?1" },
  { table: payouts, where: "partner_id = ?1" },
  { table: payoutEntries, where: "payout_id IN (SELECT id FROM payouts WHERE partner_id = ?1)" },
  { table: events, where: "partner_id = ?1" },
  { table: notificationAttempts, where: "event_id IN (SELECT id FROM events WHERE partner_id = ?1)" },
  { table: idempotencyKeys, where: "partner_id = ?1" },
];

/** The tables that hold nothing of one partner's on its shard, and why they are not moved. */
export const NOT_MOVED: Record<string, string> = {
  access_tokens: "the directory's: a partner's tokens stay where logging in finds them",
  document_uploads: "a file put to R2 whose row is not written yet: no partner; the old shard's cron collects it",
  endpoint_circuits: "no longer written (the mailboxes keep the circuits)",
  write_guard: "the guard's one row, the service's own",
  partner_moves: "the moves' own marks",
  partner_move_requests: "the directory's: the moves operators asked for",
};

/** D1 binds at most 100 parameters per statement. */
const MAX_PARAMS = 100;
/** Rows read per page, and statements per write batch: bounded work per call whatever the partner's size. */
const PAGE_ROWS = 500;
const BATCH_STATEMENTS = 50;

interface Shape {
  name: string;
  columns: string[];
  key: string[];
  where: string;
  appendOnly: boolean;
}

const shapes: Shape[] = PARTNER_TABLES.map(({ table, where, appendOnly }) => {
  const config = getTableConfig(table);
  const columns = config.columns.map((c) => c.name);
  const key = config.columns.filter((c) => c.primary).map((c) => c.name);
  return {
    name: config.name,
    columns,
    key: key.length > 0 ? key : config.primaryKeys[0]!.columns.map((c) => c.name),
    where,
    appendOnly: appendOnly ?? false,
  };
});

type Row = Record<string, unknown>;

/** A column's name as SQL takes it whatever it is (`key`, `type`, `position` are words of SQLite's too). */
const quoted = (column: string) => `"${column}"`;

/** The partner's rows of a table, a page at a time in rowid order, with their rowid as `__rowid`. */
async function* rowsOf(db: D1Database, shape: Shape, partnerId: string, columns = shape.columns) {
  for (let after = -1; ; ) {
    const { results } = await db
      .prepare(
        `SELECT rowid AS __rowid, ${columns.map(quoted).join(", ")} FROM ${shape.name} WHERE (${shape.where}) AND rowid > ?2 ORDER BY rowid LIMIT ?3`,
      )
      .bind(partnerId, after, PAGE_ROWS)
      .all<Row>();
    if (results.length > 0) yield results;
    if (results.length < PAGE_ROWS) return;
    after = results.at(-1)!.__rowid as number;
  }
}

/**
 * Runs statements in batches of BATCH_STATEMENTS. With `partial`, a batch refused by a foreign key runs
 * again a statement at a time, those still refused left out: the copy made while the partner works reads
 * table after table, so it can meet a line, a refund or an event whose application came after that
 * table's pages were read. The frozen copy, of rows that no longer change, brings them.
 */
async function runAll(db: D1Database, statements: D1PreparedStatement[], partial = false) {
  for (let i = 0; i < statements.length; i += BATCH_STATEMENTS) {
    const batch = statements.slice(i, i + BATCH_STATEMENTS);
    try {
      await db.batch(batch);
    } catch (error) {
      if (!partial || !isConstraintError(error, FOREIGN_KEY)) throw error;
      for (const statement of batch) {
        await statement.run().catch((refused: unknown) => {
          if (!isConstraintError(refused, FOREIGN_KEY)) throw refused;
        });
      }
    }
  }
}

/** How SQLite names a row whose parent is missing. */
const FOREIGN_KEY = "FOREIGN KEY constraint failed";

/**
 * Upserts rows by primary key: a row copied before is brought up to date in place (no delete, so no
 * foreign key sees its parent go). The partner's `shard` is the directory's to change (`switchShard`):
 * a copy never touches it on the target, which for shard 0 is the directory itself.
 */
function upserts(db: D1Database, shape: Shape, rows: Row[]): D1PreparedStatement[] {
  const perStatement = Math.floor(MAX_PARAMS / shape.columns.length);
  const kept = shape.columns.filter((c) => !shape.key.includes(c) && !(shape.name === "partners" && c === "shard"));
  const onConflict =
    shape.appendOnly || kept.length === 0
      ? "DO NOTHING"
      : `DO UPDATE SET ${kept.map((c) => `${quoted(c)} = excluded.${quoted(c)}`).join(", ")}`;
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < rows.length; i += perStatement) {
    const chunk = rows.slice(i, i + perStatement);
    const tuple = `(${shape.columns.map(() => "?").join(", ")})`;
    statements.push(
      db
        .prepare(
          `INSERT INTO ${shape.name} (${shape.columns.map(quoted).join(", ")}) VALUES ${chunk.map(() => tuple).join(", ")}
           ON CONFLICT (${shape.key.map(quoted).join(", ")}) ${onConflict}`,
        )
        .bind(...chunk.flatMap((row) => shape.columns.map((c) => row[c] ?? null))),
    );
  }
  return statements;
}

/**
 * Copies every row of the partner from `source` to `target`, table by table; answers the rows read.
 * `live`: the partner is still working (see runAll).
 */
async function copyRows(source: D1Database, target: D1Database, partnerId: string, live: boolean): Promise<number> {
  let copied = 0;
  for (const shape of shapes) {
    for await (const rows of rowsOf(source, shape, partnerId)) {
      await runAll(target, upserts(target, shape, rows), live);
      copied += rows.length;
    }
  }
  return copied;
}

const keyOf = (shape: Shape, row: Row) => JSON.stringify(shape.key.map((c) => row[c]));

/** Deletes from `target` the partner's rows that `source` no longer has (children first); answers how many. */
async function deleteGone(source: D1Database, target: D1Database, partnerId: string): Promise<number> {
  let deleted = 0;
  for (const shape of [...shapes].reverse()) {
    const kept = new Set<string>();
    for await (const rows of rowsOf(source, shape, partnerId, shape.key)) {
      for (const row of rows) kept.add(keyOf(shape, row));
    }
    const gone: Row[] = [];
    for await (const rows of rowsOf(target, shape, partnerId, shape.key)) {
      gone.push(...rows.filter((row) => !kept.has(keyOf(shape, row))));
    }
    const match = shape.key.map((c) => `${quoted(c)} = ?`).join(" AND ");
    await runAll(
      target,
      gone.map((row) =>
        target.prepare(`DELETE FROM ${shape.name} WHERE ${match}`).bind(...shape.key.map((c) => row[c])),
      ),
    );
    deleted += gone.length;
  }
  return deleted;
}

/** Deletes every row of the partner from `db` (children first), a page of rowids per statement. */
async function deleteRows(db: D1Database, partnerId: string, keepPartnerRow: boolean): Promise<number> {
  let deleted = 0;
  for (const shape of [...shapes].reverse()) {
    if (keepPartnerRow && shape.name === "partners") continue;
    for (;;) {
      const { meta } = await db
        .prepare(
          `DELETE FROM ${shape.name} WHERE rowid IN (SELECT rowid FROM ${shape.name} WHERE ${shape.where} LIMIT ?2)`,
        )
        .bind(partnerId, PAGE_ROWS)
        .run();
      deleted += meta.changes;
      if (meta.changes < PAGE_ROWS) break;
    }
  }
  return deleted;
}

export interface MoveShards {
  /** The directory (shard 0's binding): where logging in reads the partner's shard. */
  directory: D1Database;
  from: { shard: number; binding: D1Database };
  to: { shard: number; binding: D1Database };
}

export interface MoveReport {
  partnerId: string;
  from: number;
  to: number;
  /** Rows copied while the partner worked, and in the frozen copy. */
  copied: number;
  recopied: number;
  /** Rows of the first copy the partner had deleted by the time of the frozen copy. */
  dropped: number;
  /** Rows deleted from the old shard at the end. */
  deleted: number;
  /** From the freeze to the sessions' switch: how long the partner's writes were answered "retry". */
  frozenMs: number;
}

export interface MoveOptions {
  /** After the directory's switch: whatever else names the old shard learns the new one (the sessions). */
  switched?: (partnerId: string, shard: number) => Promise<void>;
  /**
   * How long the old shard's rows are kept after the switch: a request that learned the old shard just
   * before still reads them (they are what the new shard had at the switch) rather than nothing.
   */
  graceMs?: number;
  now?: () => number;
}

/** Why a move is refused before it starts; nothing was changed then. */
export class MoveRefused extends Error {}

/**
 * Moves the partner `partnerId` from `from` to `to` (see the file's header). A run that fails before its
 * switch leaves the partner frozen (its writes answered "retry"); run again, it starts over from the copy,
 * every step being idempotent. One that fails after its switch leaves only the old shard's rows, which
 * nothing reads any more.
 */
export async function movePartner(shards: MoveShards, partnerId: string, options: MoveOptions = {}) {
  const { directory, from, to } = shards;
  const clock = options.now ?? Date.now;
  const listed = await directory
    .prepare("SELECT shard FROM partners WHERE id = ?")
    .bind(partnerId)
    .first<{ shard: number }>();
  if (!listed) throw new MoveRefused(`no partner ${partnerId} in the directory`);
  if (listed.shard !== from.shard) throw new MoveRefused(`the partner is on shard ${listed.shard}, not ${from.shard}`);
  if (from.shard === to.shard) throw new MoveRefused(`the partner is on shard ${to.shard} already`);

  // A mark left on the target by an earlier move off it would refuse the copy's own writes.
  await to.binding.prepare("DELETE FROM partner_moves WHERE partner_id = ?").bind(partnerId).run();
  const copied = await copyRows(from.binding, to.binding, partnerId, true);

  const frozenAt = clock();
  await from.binding
    .prepare(
      `INSERT INTO partner_moves (partner_id, to_shard, started_at) VALUES (?1, NULL, ?2)
       ON CONFLICT (partner_id) DO UPDATE SET to_shard = NULL, started_at = excluded.started_at`,
    )
    .bind(partnerId, frozenAt)
    .run();
  const dropped = await deleteGone(from.binding, to.binding, partnerId);
  const recopied = await copyRows(from.binding, to.binding, partnerId, false);

  // The switch: the target's row first, then the directory's, which is what logging in reads (for a
  // partner of shard 0 it is the old shard's own row: the trigger lets a change of shard through).
  if (to.binding !== directory) {
    await to.binding.prepare("UPDATE partners SET shard = ?1 WHERE id = ?2").bind(to.shard, partnerId).run();
  }
  await directory.prepare("UPDATE partners SET shard = ?1 WHERE id = ?2").bind(to.shard, partnerId).run();
  // From now on the mark is a forwarding address: writes there still refused, deletes allowed.
  await from.binding
    .prepare("UPDATE partner_moves SET to_shard = ?1 WHERE partner_id = ?2")
    .bind(to.shard, partnerId)
    .run();
  await options.switched?.(partnerId, to.shard);
  const frozenMs = clock() - frozenAt;

  if (options.graceMs) await new Promise((resolve) => setTimeout(resolve, options.graceMs));
  // Sessions opened by a login that read the directory just before its switch.
  await options.switched?.(partnerId, to.shard);
  const keepPartnerRow = from.binding === directory;
  const deleted = await deleteRows(from.binding, partnerId, keepPartnerRow);
  if (keepPartnerRow) {
    // The directory keeps the partner's identity alone, as for any partner of another shard.
    await directory
      .prepare(
        `UPDATE partners SET api_key_ciphertext = '', signing_secret_ciphertext = NULL,
         previous_signing_secret_ciphertext = NULL, previous_signing_secret_expires_at = NULL,
         older_signing_secret_ciphertext = NULL, older_signing_secret_expires_at = NULL WHERE id = ?`,
      )
      .bind(partnerId)
      .run();
  }
  return { partnerId, from: from.shard, to: to.shard, copied, recopied, dropped, deleted, frozenMs } as MoveReport;
}

/** The shard the partner was moved to off `db`'s shard, if it was (the forwarding mark); null otherwise. */
export async function movedTo(db: D1Database, partnerId: string): Promise<number | null> {
  const mark = await db
    .prepare("SELECT to_shard FROM partner_moves WHERE partner_id = ?")
    .bind(partnerId)
    .first<{ to_shard: number | null }>();
  return mark?.to_shard ?? null;
}

/** How long a cron run's claim on a requested move holds: past it, the run is taken to have died. */
export const MOVE_CLAIM_MS = 30 * 60 * 1000;

/**
 * The moves operators asked for (partner_move_requests) that no run holds, each claimed for this run,
 * with the shard the directory has its partner on now.
 */
export async function claimRequestedMoves(directory: D1Database, at: number) {
  const { results } = await directory
    .prepare(
      `UPDATE partner_move_requests SET started_at = ?1
       WHERE finished_at IS NULL AND (started_at IS NULL OR started_at < ?2)
       RETURNING partner_id AS partnerId, to_shard AS toShard,
         (SELECT shard FROM partners WHERE id = partner_move_requests.partner_id) AS fromShard`,
    )
    .bind(at, at - MOVE_CLAIM_MS)
    .all<{ partnerId: string; toShard: number; fromShard: number | null }>();
  return results;
}

/** Records how a requested move ended: its report, or why it did not run. */
export async function finishRequestedMove(directory: D1Database, partnerId: string, report: object, at: number) {
  await directory
    .prepare("UPDATE partner_move_requests SET finished_at = ?1, report = ?2 WHERE partner_id = ?3")
    .bind(at, JSON.stringify(report), partnerId)
    .run();
}
