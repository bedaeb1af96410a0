/**
 * Moving one partner from its shard to another (src/db/shards.ts; "Shards" in docs/operations.md and
 * docs/scaling.md): copy its rows while it works, freeze its writes, copy the rows that changed meanwhile,
 * switch the directory, keep a forwarding mark on the old shard, and delete what it left there. Plain D1
 * work over the bindings given, so that the Worker (its cron, the tests) and the operator's local command
 * run the same code; what else names the old shard (the sessions) is the caller's `switched`.
 *
 * The mark of `partner_moves` (src/db/schema.ts), on both shards, drives the triggers of migration 0019.
 * While the move copies (`copying`) they name every row the partner writes in `partner_move_changes`; once
 * it is `frozen` they refuse every write of the partner with a message answered 503 with Retry-After
 * (src/transient.ts). A row the first copy may have missed or copied stale was written after the mark, so
 * it is named; none can be written after the freeze. So the frozen copy of the named rows leaves the new
 * shard holding what the old one holds, and lasts as long as the changes, not the partner's size.
 */
import { copyChanges, copyRows, deleteRows, Target } from "./partner-copy";

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
  /** Rows copied while the partner worked. */
  copied: number;
  /** Rows the frozen copy wrote on the new shard: those that changed during the first copy (and their children). */
  deltaRows: number;
  /** Of deltaRows, those deleted: the partner had deleted them by the freeze. */
  dropped: number;
  /** Rows deleted from the old shard at the end. */
  deleted: number;
  /** From the freeze to the sessions' switch: how long the partner's writes were answered "retry". */
  frozenMs: number;
}

export interface MoveOptions {
  /** After the copy made while the partner works, before the freeze: a long copy's progress. */
  copied?: (rows: number) => Promise<void> | void;
  /** After the directory's switch: whatever else names the old shard learns the new one (the sessions). */
  switched?: (partnerId: string, shard: number) => Promise<void>;
  /**
   * How long the old shard's rows are kept after the switch: a request that learned the old shard just
   * before still reads them (they are what the new shard had at the switch) rather than nothing.
   */
  graceMs?: number;
  now?: () => number;
}

/** The shard whose database is the directory too (src/db/shards.ts): it keeps every partner's row. */
const DIRECTORY = 0;

/** Why a move is refused before it starts; nothing was changed then. */
export class MoveRefused extends Error {}

/** Sets (or replaces) the partner's mark on a shard, and forgets the changes named under an earlier one. */
const marked = (db: D1Database, partnerId: string, at: number) => [
  db
    .prepare(
      `INSERT INTO partner_moves (partner_id, to_shard, state, started_at) VALUES (?1, NULL, 'copying', ?2)
       ON CONFLICT (partner_id) DO UPDATE SET to_shard = NULL, state = 'copying', started_at = excluded.started_at`,
    )
    .bind(partnerId, at),
  db.prepare("DELETE FROM partner_move_changes WHERE partner_id = ?1").bind(partnerId),
];

/**
 * Moves the partner `partnerId` from `from` to `to` (see the file's header). A run that fails before its
 * switch leaves the partner copying (its writes named) or frozen (answered "retry"); run again, it starts
 * over: the new shard's rows of the partner deleted, both marks set again. One that fails after its switch
 * leaves only the old shard's rows, which nothing reads any more.
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

  // The new shard first: its mark names what its cron writes of the partner's rows from now on, and what
  // a failed run or an earlier stay left of the partner there goes (the directory keeps its row).
  const target = new Target(to.binding, partnerId);
  await to.binding.batch(marked(to.binding, partnerId, clock()));
  await deleteRows(
    async (sql, id, limit) => (await target.batch([to.binding.prepare(sql).bind(id, limit)]))[0]!.meta.changes,
    partnerId,
    to.shard === DIRECTORY,
  );
  // Then the old one: from now on every row the partner writes there is named, read by the copy or not.
  await from.binding.batch(marked(from.binding, partnerId, clock()));
  const copied = await copyRows(from.binding, target, partnerId);
  await options.copied?.(copied);

  const frozenAt = clock();
  const freeze = "UPDATE partner_moves SET state = 'frozen' WHERE partner_id = ?1";
  await from.binding.prepare(freeze).bind(partnerId).run();
  target.state = "frozen";
  await to.binding.prepare(freeze).bind(partnerId).run();
  const delta = await copyChanges(from.binding, target, partnerId);

  // The switch: the new shard's mark and record go and its row names it, then the directory's, which is
  // what logging in reads (for a partner of shard 0 it is the old shard's own row: the trigger lets a
  // change of shard through).
  await to.binding.batch([
    to.binding.prepare("DELETE FROM partner_moves WHERE partner_id = ?1").bind(partnerId),
    to.binding.prepare("DELETE FROM partner_move_changes WHERE partner_id = ?1").bind(partnerId),
    ...(to.shard === DIRECTORY
      ? []
      : [to.binding.prepare("UPDATE partners SET shard = ?1 WHERE id = ?2").bind(to.shard, partnerId)]),
  ]);
  await directory.prepare("UPDATE partners SET shard = ?1 WHERE id = ?2").bind(to.shard, partnerId).run();
  // From now on the mark is a forwarding address: writes there still refused, deletes allowed.
  await from.binding.batch([
    from.binding
      .prepare("UPDATE partner_moves SET state = 'moved', to_shard = ?1 WHERE partner_id = ?2")
      .bind(to.shard, partnerId),
    from.binding.prepare("DELETE FROM partner_move_changes WHERE partner_id = ?1").bind(partnerId),
  ]);
  await options.switched?.(partnerId, to.shard);
  const frozenMs = clock() - frozenAt;

  if (options.graceMs) await new Promise((resolve) => setTimeout(resolve, options.graceMs));
  // Sessions opened by a login that read the directory just before its switch.
  await options.switched?.(partnerId, to.shard);
  const keepPartnerRow = from.shard === DIRECTORY;
  const deleted = await deleteRows(
    async (sql, id, limit) => (await from.binding.prepare(sql).bind(id, limit).run()).meta.changes,
    partnerId,
    keepPartnerRow,
  );
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
  return {
    partnerId,
    from: from.shard,
    to: to.shard,
    copied,
    deltaRows: delta.rows,
    dropped: delta.deleted,
    deleted,
    frozenMs,
  } as MoveReport;
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
