/**
 * The Cron Trigger's work (wrangler.toml `[triggers]`), loaded when it first runs: each task is bounded
 * per run, so a backlog drains over a few runs and no run overlaps the next.
 * - deadlines: lapses, reminders and reviews that fell due (src/applications/deadline-sweep.ts);
 * - the outbox's safety net: overdue notifications woken up again (src/notifications/sweep.ts);
 * - forgetting what has expired: Idempotency-Key answers after 24 hours, access-token records after
 *   their two hours;
 * - payouts: closing each partner's payout of the day at the cutoff (src/settlement/payouts.ts), and
 *   telling the applications of paid ones (READY_PAID, src/settlement/paid.ts);
 * - documents: files kept in D1 before files went to R2 moved there (src/db/documents-to-r2.ts), and
 *   the files of writes that never landed deleted (src/db/document-files.ts);
 * - the archive: finished applications idle for ARCHIVE_AFTER_DAYS moved to R2 (src/db/archive.ts),
 *   judged at the cron's instant against each application's own clock (a sandbox's advance moves it).
 * - partner moves an operator asked for (`npm run partner:move -- --remote`), run here because the
 *   sessions' objects are within the Worker's reach alone (src/rate-limit/partner-moved.ts).
 * Every task but the tokens' and the moves' runs on each shard (src/db/shards.ts), the shards side by side; the access
 * tokens are the directory's. Each run logs one line of what it did ("scheduled run", summed over the
 * shards): what an operator reads in the logs, and what `npm run cron` (scripts/cron.ts) prints locally.
 */
import { type SweepRun, type SweepServices, sweepDeadlines } from "./applications/deadline-sweep";
import { now } from "./clock";
import { archiveAfterMs, config, deadlinePolicy, type Env } from "./config";
import { type ArchiveRun, archiveFinished } from "./db/archive";
import { database, shardDatabase } from "./db/client";
import { collectAbandonedUploads } from "./db/document-files";
import { type MoveRun, moveDocumentsToR2 } from "./db/documents-to-r2";
import { forgetExpiredTokens } from "./db/partners";
import { everyShard, shardBinding } from "./db/shards";
import { forgetExpiredKeys } from "./http/idempotency";
import { errorFields, log } from "./log";
import { publish } from "./notifications/outbox";
import { sweep } from "./notifications/sweep";
import { type TellingRun, tellPaidApplications } from "./settlement/paid";
import { lastCutoff } from "./settlement/payout-cutoff";
import { type ClosingRun, closeDuePayouts } from "./settlement/payouts";

/** The services a scheduled change on a shard needs: its events go to the queue before the run ends. */
export function scheduledServices(env: Env, pending: Promise<unknown>[], shard = 0): SweepServices {
  const cfg = config(env);
  const db = shardDatabase(env, shard);
  return {
    db,
    client: db.$client,
    files: env.DOCUMENTS,
    archive: env.ARCHIVE,
    storageQuota: cfg.STORAGE_QUOTA_BYTES,
    deadlines: deadlinePolicy(cfg),
    timeZone: cfg.SERVICE_TIMEZONE,
    notify: (messages) => {
      pending.push(publish(env, shard, messages));
    },
  };
}

/**
 * Runs the moves operators asked for, one after another, each recorded with its report (a move refused or
 * failed, with why: an operator reads it, and asks again).
 */
async function moveRequestedPartners(env: Env): Promise<number> {
  const { claimRequestedMoves, finishRequestedMove, movePartner } = await import("./db/partner-move");
  const { moveSessions } = await import("./rate-limit/partner-moved");
  const requests = await claimRequestedMoves(env.DB, now());
  for (const { partnerId, toShard, fromShard } of requests) {
    let report: object;
    try {
      if (fromShard === null) throw new Error(`no partner ${partnerId}`);
      report = await movePartner(
        {
          directory: env.DB,
          from: { shard: fromShard, binding: shardBinding(env, fromShard) },
          to: { shard: toShard, binding: shardBinding(env, toShard) },
        },
        partnerId,
        { switched: (id, shard) => moveSessions(env, id, shard, now()), graceMs: MOVE_GRACE_MS },
      );
    } catch (error) {
      report = { error: error instanceof Error ? error.message : String(error) };
      log("error", "partner move failed", { partnerId, toShard, ...errorFields(error) });
    }
    await finishRequestedMove(env.DB, partnerId, report, now());
  }
  return requests.length;
}

/** How long a move keeps the old shard's rows after its switch (src/db/partner-move.ts, `graceMs`). */
const MOVE_GRACE_MS = 2_000;

const sum = <T>(runs: readonly T[], count: (run: T) => number) => runs.reduce((total, run) => total + count(run), 0);

export interface ScheduledRun {
  /** Applications whose due lapse, reminder or review was applied; `more` when some are left due. */
  deadlines: SweepRun;
  /** Overdue notifications put on the queue again. */
  notificationsWoken: number;
  /** Records of expired access tokens deleted. */
  tokensForgotten: number;
  /** Payouts closed at the last cutoff; `more` when partners are left for the next run. */
  payouts: ClosingRun;
  /** Applications told that a payout paid them (READY_PAID); `more` when some are left. */
  paid: TellingRun;
  /** Documents whose file moved from D1 to R2; `more` when some are left in D1. */
  documentsMoved: MoveRun;
  /** Files of documents whose write never landed, deleted. */
  filesCollected: number;
  /** Finished applications moved to the archive; `more` when some are left for the next run. */
  archived: ArchiveRun;
  /** Partners moved to another shard, as operators asked (each request gets its report). */
  partnersMoved: number;
  /** The tasks that failed this run (each logged with its cause); the next run tries them again. */
  failed: string[];
}

/**
 * Runs the tasks side by side; one that fails is logged with its cause and named in the run, and the
 * others' work stands: one task's failure must not hide, nor undo, what the others did.
 */
export async function runScheduled(env: Env): Promise<ScheduledRun> {
  const published: Promise<unknown>[] = [];
  const failed: string[] = [];
  const task = async <T>(name: string, work: () => Promise<T>, otherwise: T): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      failed.push(name);
      log("error", "scheduled task failed", { task: name, ...errorFields(error) });
      return otherwise;
    }
  };
  const at = now();
  const cfg = config(env);
  /** A task on every shard; a failure is named with its shard (but on shard 0, named as before shards). */
  const onEachShard = async <T>(name: string, work: (shard: number) => Promise<T>, otherwise: T): Promise<T[]> =>
    Promise.all(
      everyShard(env).map(({ shard }) =>
        task(shard === 0 ? name : `${name} (shard ${shard})`, () => work(shard), otherwise),
      ),
    );
  const cutoff = lastCutoff(at, cfg.PAYOUT_CUTOFF_HOUR, cfg.SERVICE_TIMEZONE);
  const [deadlines, notificationsWoken, , tokensForgotten, payouts, paid, documentsMoved, filesCollected, archived] =
    await Promise.all([
      onEachShard("deadlines", (s) => sweepDeadlines(scheduledServices(env, published, s)), { applied: 0, more: true }),
      onEachShard("notifications", (s) => sweep(env, s), 0),
      onEachShard("idempotency keys", (s) => forgetExpiredKeys(env, s), undefined),
      task("access tokens", () => forgetExpiredTokens(database(env), at), 0),
      onEachShard(
        "payouts",
        (s) => {
          const db = shardDatabase(env, s);
          return closeDuePayouts(db, db.$client, cutoff, at);
        },
        { closed: 0, more: true },
      ),
      onEachShard("paid applications", (s) => tellPaidApplications(scheduledServices(env, published, s), at), {
        told: 0,
        more: true,
      }),
      onEachShard("documents to R2", (s) => moveDocumentsToR2(shardDatabase(env, s).$client, env.DOCUMENTS), {
        moved: 0,
        more: true,
      }),
      onEachShard(
        "abandoned document files",
        (s) => collectAbandonedUploads(shardDatabase(env, s).$client, env.DOCUMENTS, at),
        0,
      ),
      onEachShard(
        "archive",
        (s) => archiveFinished(shardDatabase(env, s).$client, env.ARCHIVE, at, archiveAfterMs(cfg)),
        {
          archived: 0,
          more: true,
        },
      ),
    ]);
  // After the others, not beside them: a move freezes its partner's writes, which the others would meet.
  const partnersMoved = await task("partner moves", () => moveRequestedPartners(env), 0);
  const run = {
    deadlines: { applied: sum(deadlines, (r) => r.applied), more: deadlines.some((r) => r.more) },
    notificationsWoken: sum(notificationsWoken, (n) => n),
    tokensForgotten,
    payouts: { closed: sum(payouts, (r) => r.closed), more: payouts.some((r) => r.more) },
    paid: { told: sum(paid, (r) => r.told), more: paid.some((r) => r.more) },
    documentsMoved: { moved: sum(documentsMoved, (r) => r.moved), more: documentsMoved.some((r) => r.more) },
    filesCollected: sum(filesCollected, (n) => n),
    archived: { archived: sum(archived, (r) => r.archived), more: archived.some((r) => r.more) },
    partnersMoved,
    failed,
  };
  await Promise.all(published);
  log(failed.length > 0 ? "error" : "info", "scheduled run", run);
  return run;
}
