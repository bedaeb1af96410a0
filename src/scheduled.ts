/**
 * The Cron Trigger's work (wrangler.toml `[triggers]`), loaded when it first runs: each task is bounded
 * per run, so a backlog drains over a few runs and no run overlaps the next.
 * - the outbox's safety net: overdue notifications woken up again (src/notifications/sweep.ts);
 * - forgetting what has expired: Idempotency-Key answers after 24 hours, access-token records after
 *   their two hours.
 */
import { now } from "./clock";
import type { Env } from "./config";
import { database } from "./db/client";
import { forgetExpiredTokens } from "./db/partners";
import { forgetExpiredKeys } from "./http/idempotency";
import { sweep } from "./notifications/sweep";

export async function runScheduled(env: Env): Promise<void> {
  await Promise.all([sweep(env), forgetExpiredKeys(env), forgetExpiredTokens(database(env), now())]);
}
