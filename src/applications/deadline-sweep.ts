/**
 * The scheduled sweep of deadlines (CONTRACT 6a): what is due for every application (a lapse, a
 * reminder, a review's settlement) is applied through the one write path, whatever the backlog.
 *
 * Due applications are found through the due index, a page at a time in the order they fell due; a
 * page's plans (planDue) are written as one batch, each with its own guard, and their events handed to
 * the queue. When a batch fails (it met a concurrent write, a partner's send, extension or cancel, or an
 * application that cannot be read or written), its applications are applied one by one instead, each
 * on fresh state (changeApplication): the guarded write decides who wins, the loser is refused or finds
 * nothing due, and one that fails alone is logged (id, partner, cause) and skipped. A run stops at MAX_PER_RUN applications or
 * BUDGET_MS, so a run never overlaps the next (every 5 minutes); a backlog drains over a few runs.
 */
import { now } from "../clock";
import { writePlans } from "../db/application-write";
import { type DueCursor, dueApplications, loadAggregates } from "../db/applications";
import type { Database } from "../db/client";
import { StorageQuotaExceeded } from "../db/storage";
import { WriteConflict } from "../db/write-batch";
import { planDue } from "../domain/application-operations";
import type { Plan } from "../domain/plan";
import { errorFields, log } from "../log";
import { type ChangeServices, changeApplication, planContext } from "./change-application";

/** Applications read and written together. */
const PAGE = 25;
export const MAX_PER_RUN = 5_000;
const BUDGET_MS = 4 * 60_000;

export interface SweepRun {
  /** Applications whose due step was written. */
  applied: number;
  /** Whether due applications are left for the next run. */
  more: boolean;
}

/** What the sweep needs beside a change's services: Drizzle, for its reads of the due applications. */
export interface SweepServices extends ChangeServices {
  db: Database;
}

export async function sweepDeadlines(services: SweepServices): Promise<SweepRun> {
  const started = now();
  const { db } = services;
  let cursor: DueCursor | null = null;
  let seen = 0;
  let applied = 0;
  while (seen < MAX_PER_RUN && now() - started < BUDGET_MS) {
    const at = now();
    const due = await dueApplications(db, at, cursor, Math.min(PAGE, MAX_PER_RUN - seen));
    if (due.length === 0) return { applied, more: false };
    seen += due.length;
    const last = due.at(-1)!;
    cursor = { nextDueAt: last.nextDueAt!, id: last.id };
    try {
      applied += await applyPage(services, due, at);
    } catch (error) {
      // A concurrent write or a quota refuses the page's batch; an application that cannot be read or
      // written fails it whole. Either way each application is applied alone, on fresh state: the
      // guarded write decides who wins a race, and one that fails alone is skipped, so that no single
      // application can stop the sweep for every partner.
      if (!(error instanceof WriteConflict) && !(error instanceof StorageQuotaExceeded)) {
        log("warn", "deadline sweep: a page failed, applying its applications one by one", errorFields(error));
      }
      for (const { id, partnerId } of due) {
        try {
          const result = await changeApplication(services, partnerId, id, planDue);
          if (result.outcome === "written") applied++;
        } catch (error) {
          log("error", "deadline sweep: application skipped", {
            applicationId: id,
            partnerId,
            ...errorFields(error),
          });
        }
      }
    }
  }
  return { applied, more: true };
}

/** One page's due steps, read together and written as one batch: how many were written. */
async function applyPage(services: SweepServices, due: readonly { id: string }[], at: number): Promise<number> {
  const ctx = planContext(at, services.deadlines, services.timeZone);
  const writes = (
    await loadAggregates(
      services.db,
      due.map((d) => d.id),
    )
  ).flatMap((current) => {
    const plan = planDue(current, ctx);
    return plan.ok ? [{ current, plan: plan.value }] : [];
  });
  await writePlans(services.client, writes, at, services.storageQuota);
  notify(
    services,
    writes.map((w) => w.plan),
  );
  return writes.length;
}

function notify(services: ChangeServices, plans: readonly Plan[]) {
  const messages = plans.flatMap((p) => (p.event ? [{ eventId: p.event.id, due: p.event.occurredAt }] : []));
  if (messages.length > 0) services.notify(messages);
}
