/**
 * The scheduled sweep of deadlines (CONTRACT 6a): what is due for every application (a lapse, a
 * reminder, a review's settlement) is applied through the one write path, whatever the backlog.
 *
 * Due applications are found through the due index, a page at a time in the order they fell due; a
 * page's plans (planDue) are written as one batch, each with its own guard, and their events handed to
 * the queue. When a batch meets a concurrent write (a partner's send, extension or cancel), its plans
 * are applied one by one instead, each on fresh state (changeApplication): the guarded write decides
 * who wins, and the loser is refused or finds nothing due. A run stops at MAX_PER_RUN applications or
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

    const ctx = planContext(at, services.deadlines);
    const writes = (
      await loadAggregates(
        db,
        due.map((d) => d.id),
      )
    ).flatMap((current) => {
      const plan = planDue(current, ctx);
      return plan.ok ? [{ current, plan: plan.value }] : [];
    });
    try {
      await writePlans(services.client, writes, at, services.storageQuota);
      notify(
        services,
        writes.map((w) => w.plan),
      );
      applied += writes.length;
    } catch (error) {
      if (!(error instanceof WriteConflict) && !(error instanceof StorageQuotaExceeded)) throw error;
      for (const { current } of writes) {
        const { partnerId, id } = current.application;
        const result = await changeApplication(services, partnerId, id, planDue);
        if (result.outcome === "written") applied++;
      }
    }
  }
  return { applied, more: true };
}

function notify(services: ChangeServices, plans: readonly Plan[]) {
  const messages = plans.flatMap((p) => (p.event ? [{ eventId: p.event.id, due: p.event.occurredAt }] : []));
  if (messages.length > 0) services.notify(messages);
}
