import { now } from "../clock";
import type { Env } from "../config";
import { shardDatabase } from "../db/client";
import { claimOverdue } from "../db/events";
import { publish } from "./outbox";

/**
 * An event still PENDING this long after it was due lost its wake-up (enqueueing failed after the
 * write, a queue outage, a crash between an attempt and scheduling the next) or waits behind a backlog.
 */
export const OVERDUE_AFTER_MS = 2 * 60 * 1000;
/** Events claimed per round: one UPDATE … RETURNING and one queue batch (the queue takes 100 per batch). */
const ROUND = 100;
/** The sweep runs every 5 minutes; it stops well inside that, so that two sweeps never overlap. */
const BUDGET_MS = 60_000;

/**
 * Scheduled safety net of the outbox: every PENDING event overdue by more than two minutes, whether it
 * was never enqueued or already had attempts, is made due now and woken up again, a hundred at a time,
 * until none is left (10,000 take a hundred rounds, a few seconds). An event being delivered right now
 * is left alone, and a wake-up that was merely late is dropped as stale when it arrives (its `due` no
 * longer matches), so nothing is POSTed twice. Answers how many events it woke up on the shard
 * (src/db/shards.ts; the cron sweeps each).
 */
export async function sweep(env: Env, shard = 0): Promise<number> {
  const db = shardDatabase(env, shard);
  const started = now();
  let woken = 0;
  while (now() - started < BUDGET_MS) {
    const at = now();
    const ids = await claimOverdue(db, at - OVERDUE_AFTER_MS, at, ROUND);
    if (ids.length === 0) break;
    const sent = await publish(
      env,
      shard,
      ids.map((eventId) => ({ eventId, due: at })),
    );
    // The queue is down: these events are overdue again in two minutes, for the next sweep.
    if (!sent) break;
    woken += ids.length;
    if (ids.length < ROUND) break;
  }
  return woken;
}
