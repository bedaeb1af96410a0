/**
 * Telling applications they were paid (CONTRACT 6b): once a payout holding an application's sale is
 * PAID, a READY application takes the state reason READY_PAID, with its one event, through the one
 * write path. The operator's mark is plain SQL (scripts/payouts-mark.ts), so the cron tells them, a
 * bounded number a run; the sandbox's close tells its own at once.
 */
import { type ChangeServices, changeApplication } from "../applications/change-application";
import type { Database } from "../db/client";
import { applicationsToTell, markTold, payoutsToTell } from "../db/settlement";
import { planPaid } from "../domain/application-operations";

/** Applications told per run (each a write and an event): the next run goes on. */
export const TOLD_PER_RUN = 100;

/**
 * Tells up to `budget` applications of the payout; marks the payout told once none is left. Answers
 * how many it told.
 */
export async function tellPayout(
  services: ChangeServices & { db: Database },
  payoutId: string,
  at: number,
  budget: number,
): Promise<number> {
  let told = 0;
  while (told < budget) {
    const waiting = await applicationsToTell(services.client, payoutId, budget - told);
    if (waiting.length === 0) {
      await markTold(services.db, payoutId, at);
      break;
    }
    for (const { partnerId, applicationId } of waiting) {
      // Refused when it is no longer READY, or told meanwhile: either way it leaves the list.
      await changeApplication(services, partnerId, applicationId, planPaid);
      told++;
    }
  }
  return told;
}

/** What one run of the telling did. */
export interface TellingRun {
  told: number;
  /** Applications may be left for the next run. */
  more: boolean;
}

/** Tells the applications of every PAID payout not yet told, oldest payment first, TOLD_PER_RUN at most. */
export async function tellPaidApplications(
  services: ChangeServices & { db: Database },
  at: number,
): Promise<TellingRun> {
  let told = 0;
  for (const payoutId of await payoutsToTell(services.db, TOLD_PER_RUN)) {
    told += await tellPayout(services, payoutId, at, TOLD_PER_RUN - told);
    if (told >= TOLD_PER_RUN) return { told, more: true };
  }
  return { told, more: false };
}
