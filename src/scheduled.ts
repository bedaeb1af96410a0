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
 * Each run logs one line of what it did ("scheduled run"): what an operator reads in the logs, and what
 * `npm run cron` (scripts/cron.ts) prints locally.
 */
import { type SweepRun, type SweepServices, sweepDeadlines } from "./applications/deadline-sweep";
import { now } from "./clock";
import { archiveAfterMs, config, deadlinePolicy, type Env } from "./config";
import { type ArchiveRun, archiveFinished } from "./db/archive";
import { database } from "./db/client";
import { collectAbandonedUploads } from "./db/document-files";
import { type MoveRun, moveDocumentsToR2 } from "./db/documents-to-r2";
import { forgetExpiredTokens } from "./db/partners";
import { forgetExpiredKeys } from "./http/idempotency";
import { errorFields, log } from "./log";
import { publish } from "./notifications/outbox";
import { sweep } from "./notifications/sweep";
import { type TellingRun, tellPaidApplications } from "./settlement/paid";
import { lastCutoff } from "./settlement/payout-cutoff";
import { type ClosingRun, closeDuePayouts } from "./settlement/payouts";

/** The services a scheduled change needs: its events go to the queue before the run ends. */
export function scheduledServices(env: Env, pending: Promise<unknown>[]): SweepServices {
  const cfg = config(env);
  const db = database(env);
  return {
    db,
    client: db.$client,
    files: env.DOCUMENTS,
    archive: env.ARCHIVE,
    storageQuota: cfg.STORAGE_QUOTA_BYTES,
    deadlines: deadlinePolicy(cfg),
    timeZone: cfg.SERVICE_TIMEZONE,
    notify: (messages) => {
      pending.push(publish(env, messages));
    },
  };
}

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
  const db = database(env);
  const [deadlines, notificationsWoken, , tokensForgotten, payouts, paid, documentsMoved, filesCollected, archived] =
    await Promise.all([
      task("deadlines", () => sweepDeadlines(scheduledServices(env, published)), { applied: 0, more: true }),
      task("notifications", () => sweep(env), 0),
      task("idempotency keys", () => forgetExpiredKeys(env), undefined),
      task("access tokens", () => forgetExpiredTokens(db, at), 0),
      task(
        "payouts",
        () => closeDuePayouts(db, db.$client, lastCutoff(at, cfg.PAYOUT_CUTOFF_HOUR, cfg.SERVICE_TIMEZONE), at),
        { closed: 0, more: true },
      ),
      task("paid applications", () => tellPaidApplications(scheduledServices(env, published), at), {
        told: 0,
        more: true,
      }),
      task("documents to R2", () => moveDocumentsToR2(db.$client, env.DOCUMENTS), { moved: 0, more: true }),
      task("abandoned document files", () => collectAbandonedUploads(db.$client, env.DOCUMENTS, at), 0),
      task("archive", () => archiveFinished(db.$client, env.ARCHIVE, at, archiveAfterMs(cfg)), {
        archived: 0,
        more: true,
      }),
    ]);
  await Promise.all(published);
  const run = {
    deadlines,
    notificationsWoken,
    tokensForgotten,
    payouts,
    paid,
    documentsMoved,
    filesCollected,
    archived,
    failed,
  };
  log(failed.length > 0 ? "error" : "info", "scheduled run", run);
  return run;
}
