/**
 * `npm run cron`: one run of the Worker's Cron Trigger against the local database `npm start` uses, and
 * what it did. Locally nothing triggers the cron (wrangler dev never does), and wrangler's own way in,
 * `/cdn-cgi/handler/scheduled`, answers 500 in this project: with `[assets]` in wrangler.toml, wrangler
 * 4.86 hands the event to the assets router first, which cannot pass the ScheduledController on to the
 * Worker (DataCloneError).
 *
 * So the Worker runs here, in a runtime of its own (scripts/local-runtime.ts): this checkout's build
 * (into dist/cron) on the D1 databases and R2 buckets of `.wrangler/state`, or of `--persist-to DIR`:
 * those of the server beside it. Its statements are run again when they found the database locked by the
 * server (scripts/cron-database.mjs), as the local D1 commands are (scripts/lib.ts). The scheduled handler
 * runs once; this runtime's own queue consumer, the deployed one, delivers the notifications the run
 * hands to the queue, and it waits for them (at most WAIT_MS) before it stops. A delivery that failed
 * is tried again by a later run (it is overdue by then): the wake-up it scheduled ends with this
 * runtime. The rate limiter's objects are this runtime's own (the cron never uses them).
 *
 *   npm run cron [-- --persist-to DIR] [--var NAME:VALUE …]
 *
 * Give it the `--persist-to` and `--var` you gave `npm start` (the deadlines' variables decide how long
 * the authorization a review approves lasts). It prints the run's log line ("scheduled run",
 * src/scheduled.ts), then a summary.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { applyLocalMigrations, BUSY, ensureDevVars, shardBindings } from "./lib";
import { startLocalRuntime } from "./local-runtime";

/** The run's log line, as src/scheduled.ts writes it (its ScheduledRun). */
interface ScheduledRun {
  deadlines: { applied: number; more: boolean };
  notificationsWoken: number;
  tokensForgotten: number;
  documentsMoved: { moved: number; more: boolean };
  filesCollected: number;
  archived: { archived: number; more: boolean };
  partnersMoved: number;
}

const root = path.join(import.meta.dirname, "..");
const BUILD = path.join(root, "dist/cron");
/** How long it waits for the notifications of its run to be delivered (or given a later attempt). */
const WAIT_MS = 30_000;

const { values: args } = parseArgs({
  options: { "persist-to": { type: "string" }, var: { type: "string", multiple: true } },
});
const persistTo = args["persist-to"] ?? ".wrangler/state";
const vars: Record<string, string> = {};
for (const pair of args.var ?? []) {
  const at = pair.indexOf(":");
  if (at < 1) throw new Error(`--var ${pair}: expected NAME:VALUE, as wrangler dev takes it`);
  vars[pair.slice(0, at)] = pair.slice(at + 1);
}

ensureDevVars();
applyLocalMigrations({ quiet: true, ...(args["persist-to"] ? { persistTo } : {}) });
let run: ScheduledRun | undefined;
const { mf, database } = startLocalRuntime({
  outdir: BUILD,
  persistTo,
  vars,
  onLog: (line, level) => {
    if (line.startsWith('{"level":"info","message":"scheduled run"')) run = JSON.parse(line) as ScheduledRun;
    (level === "error" || level === "warn" ? process.stderr : process.stdout).write(`${line}\n`);
  },
});

const stop = async () => {
  await mf.dispose();
  process.exit(130);
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);

let summary: string;
try {
  const worker = await mf.getWorker();
  const databases = await Promise.all(shardBindings().map(database));
  const started = Date.now();
  const result = await worker.scheduled({ cron: "*/5 * * * *", scheduledTime: new Date(started) });
  if (result.outcome !== "ok" || !run) throw new Error(`the scheduled handler failed (${result.outcome})`);

  // The events of this run (woken or written) are due from its start; each leaves that window once
  // delivered, failed for good, or given a later attempt. A busy database is asked again.
  const waiting = async () => {
    try {
      let n = 0;
      for (const database of databases) {
        const row = await database
          .prepare("SELECT COUNT(*) AS n FROM events WHERE status = 'PENDING' AND next_attempt_at BETWEEN ? AND ?")
          .bind(started, Date.now())
          .first<{ n: number }>();
        n += row?.n ?? 0;
      }
      return n;
    } catch (error) {
      if (BUSY.test(String(error))) return Number.POSITIVE_INFINITY;
      throw error;
    }
  };
  let left = await waiting();
  for (const until = Date.now() + WAIT_MS; left > 0 && Date.now() < until; left = await waiting()) {
    await new Promise((resolve) => setTimeout(resolve, 250));
  }

  const { deadlines, notificationsWoken, tokensForgotten, documentsMoved, filesCollected, archived, partnersMoved } =
    run;
  summary = [
    `cron: one run of the scheduled handler on the local databases (${shardBindings().join(", ")}) in ${persistTo}`,
    `  deadlines applied (lapses, reminders, reviews settled): ${deadlines.applied}${deadlines.more ? "; more are due: run it again" : ""}`,
    `  overdue notifications woken: ${notificationsWoken}`,
    `  expired access-token records forgotten: ${tokensForgotten}`,
    `  documents whose file moved from D1 to R2: ${documentsMoved.moved}${documentsMoved.more ? "; more are left: run it again" : ""}`,
    `  files of writes that never landed, deleted: ${filesCollected}`,
    `  finished applications archived: ${archived.archived}${archived.more ? "; more are waiting: run it again" : ""}`,
    `  partner moves asked for and run (partner_move_requests): ${partnersMoved}`,
    left === 0
      ? "  notifications: every one handed to the queue was delivered, or failed and waits for a later run"
      : `  notifications: some not yet delivered after ${WAIT_MS / 1000} s; a later run sends them`,
  ].join("\n");
} finally {
  await mf.dispose();
}
// After the runtime stopped, so that its last log lines come first.
console.log(summary);
