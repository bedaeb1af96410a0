/**
 * Closing payouts (CONTRACT 6b): at each day's cutoff the cron closes, for every partner and currency
 * with open entries created before it, one payout of them all (src/domain/payouts.ts decides, from their
 * sums); the sandbox closes a partner's at once and pays it. A closing that loses a race (an entry
 * entered or taken between its sums and its write) plans again on fresh sums.
 */
import type { Database } from "../db/client";
import {
  closedUntil,
  markPayout,
  openCurrencies,
  openTotals,
  partnersToClose,
  ReferenceTaken,
  writePayout,
} from "../db/settlement";
import { WriteConflict } from "../db/write-batch";
import { newPayoutReference } from "../domain/payout-reference";
import { type Payout, planClosing, planPayoutMark } from "../domain/payouts";
import { problem, type Result, refused } from "../domain/result";
import { newId } from "../ids";

const randomUint32 = () => crypto.getRandomValues(new Uint32Array(1))[0]!;

/** Rounds before a closing gives up to racing writes; the next run closes what is left. */
const ROUNDS = 5;

/**
 * The payout of the partner's open entries in `currency` created before `periodEnd`, closed at `at`; or
 * NOTHING_TO_PAY when they add up to nothing positive (they wait for the next).
 */
export async function closePayout(
  db: Database,
  client: D1Database,
  target: { partnerId: string; currency: string; periodEnd: number },
  at: number,
): Promise<Result<Payout>> {
  for (let round = 1; ; round++) {
    const open = await openTotals(db, target.partnerId, target.currency, target.periodEnd);
    const planned = planClosing(
      open,
      { ...target, reference: newPayoutReference(randomUint32) },
      {
        at,
        newId: () => newId(at),
      },
    );
    if (!planned.ok) return planned;
    try {
      await writePayout(client, planned.value);
      return planned;
    } catch (error) {
      if (!(error instanceof WriteConflict || error instanceof ReferenceTaken)) throw error;
      if (round >= ROUNDS) {
        return refused(problem("CONCURRENT_MODIFICATION", "entries kept changing while the payout closed"));
      }
    }
  }
}

/** What one run of the closing did. */
export interface ClosingRun {
  /** Payouts closed. */
  closed: number;
  /** Partners left for the next run (the run's bound was reached). */
  more: boolean;
}

/** Partners visited per run: a run's work stays bounded whatever the fleet; the next run goes on. */
const PARTNERS_PER_RUN = 100;

/**
 * Closes the payouts due at the cutoff `periodEnd`: for each partner not visited at that cutoff yet, one
 * payout per currency of its open entries before it (or none, where they add up to nothing positive).
 */
export async function closeDuePayouts(
  db: Database,
  client: D1Database,
  periodEnd: number,
  at: number,
): Promise<ClosingRun> {
  const due = await partnersToClose(db, periodEnd, PARTNERS_PER_RUN + 1);
  let closed = 0;
  for (const partnerId of due.slice(0, PARTNERS_PER_RUN)) {
    for (const currency of await openCurrencies(db, partnerId, periodEnd)) {
      if ((await closePayout(db, client, { partnerId, currency, periodEnd }, at)).ok) closed++;
    }
    await closedUntil(db, partnerId, periodEnd);
  }
  return { closed, more: due.length > PARTNERS_PER_RUN };
}

/**
 * The sandbox's "close now and pay": every open entry of the partner, up to this instant, in each
 * currency, closed and marked PAID at once, so that a partner tests the whole money path in minutes.
 * The payouts it paid (none when nothing was positive to pay).
 */
export async function closeAndPayNow(
  db: Database,
  client: D1Database,
  partnerId: string,
  at: number,
): Promise<Payout[]> {
  const paid: Payout[] = [];
  // Entries written in this same millisecond count: the cutoff is just after it.
  const periodEnd = at + 1;
  for (const currency of await openCurrencies(db, partnerId, periodEnd)) {
    const closed = await closePayout(db, client, { partnerId, currency, periodEnd }, at);
    if (!closed.ok) continue;
    const marked = planPayoutMark(closed.value, "PAID", { at });
    if (marked.ok && (await markPayout(client, marked.value))) paid.push(marked.value);
  }
  return paid;
}
