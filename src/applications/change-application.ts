/**
 * Changing an application, the same for the partner API and the gateway: load the aggregate, let the
 * domain plan the change, write the plan as one guarded batch, and hand its event to the queue after
 * the answer. A round that lost a race runs again on fresh state, so the decision is always taken on
 * what the write actually changes. Plain inputs, no framework: whoever serves the request says where
 * the database is and how work outlives the answer.
 */
import { formatDate, now } from "../clock";
import { loadAggregate } from "../db/application-reads";
import { writePlan } from "../db/application-write";
import type { Aggregate } from "../db/applications";
import { aggregateOrArchived, restoreArchived } from "../db/archive";
import { auditStatements } from "../db/audit-events";
import { STORAGE_QUOTA_PROBLEM, StorageQuotaExceeded } from "../db/storage";
import { WriteConflict } from "../db/write-batch";
import type { AuditEntry } from "../domain/audit";
import type { DeadlinePolicy } from "../domain/deadlines";
import type { Current, Plan, PlanContext } from "../domain/plan";
import { type Problem, problem, type Result } from "../domain/result";
import { newId } from "../ids";
import type { NotificationMessage } from "../notifications/message";

export type Planner = (current: Current, ctx: PlanContext) => Result<Plan>;

/** What a change needs from whoever serves the request. */
export interface ChangeServices {
  /** The database, as the D1 client (src/db/routing.ts): a change needs no Drizzle. */
  client: D1Database;
  /** Where the files of documents are kept (the DOCUMENTS bucket). */
  files: R2Bucket;
  /** Where finished applications are archived (the ARCHIVE bucket): a change to one brings it back first. */
  archive: R2Bucket;
  /** The storage quota of a partner without one of its own (STORAGE_QUOTA_BYTES). */
  storageQuota: number;
  /** The deadlines every plan judges, and the service's time zone its dates are in (the Worker's variables). */
  deadlines: DeadlinePolicy;
  timeZone: string;
  /** Hands wake-ups for new events to the queue, after the answer (the outbox's sweep is the safety net). */
  notify: (messages: NotificationMessage[]) => void;
  /** What the audit log says of the change once written: appended in the change's own batch. */
  audit?: (plan: Plan) => AuditEntry;
}

export type Change =
  | { outcome: "written"; aggregate: Aggregate; plan: Plan }
  | { outcome: "refused"; problems: Problem[]; current: Aggregate }
  | { outcome: "not_found" };

/**
 * Losing every round takes a storm of writes to one application: the client's retry is the remedy, so
 * it gets a clear 409, not a 500 that reads as our fault.
 */
export const CONCURRENT_MODIFICATION = problem(
  "CONCURRENT_MODIFICATION",
  "concurrent requests changed the same application; retry the request",
);

/** Rounds before a change gives up to concurrent writes (D1 serialises writes, so some racer wins every round). */
const ROUNDS = 25;

/**
 * What a plan is made with at the instant `at`: ids that sort by it, the service's date then (in
 * `timeZone`), and the deadlines' lengths.
 */
export function planContext(at: number, deadlines: DeadlinePolicy, timeZone: string): PlanContext {
  return { at, today: formatDate(at, timeZone), newId: () => newId(at), deadlines };
}

/** Loads, plans and writes the partner's application; answers what happened. */
export async function changeApplication(
  services: ChangeServices,
  partnerId: string,
  applicationId: string,
  planner: Planner,
): Promise<Change> {
  const { client } = services;
  for (let round = 1; ; round++) {
    const current = await loadAggregate(client, partnerId, applicationId);
    if (!current) return { outcome: "not_found" };
    // An archived application is a tombstone in D1. A change it refuses (as it was archived) is refused
    // without bringing it back; one it allows brings it back into D1 as it was, then is planned again on
    // the live application, as any other.
    if (current.application.archiveKey !== null) {
      const archived = await aggregateOrArchived(services.archive, current);
      const tried = planner(archived, planContext(now(), services.deadlines, services.timeZone));
      if (!tried.ok) return { outcome: "refused", problems: tried.problems, current: archived };
      await restoreArchived(client, services.archive, current.application, now());
      if (round >= ROUNDS) return { outcome: "refused", problems: [CONCURRENT_MODIFICATION], current };
      continue;
    }
    const at = now();
    const plan = planner(current, planContext(at, services.deadlines, services.timeZone));
    if (!plan.ok) return { outcome: "refused", problems: plan.problems, current };
    try {
      const entry = services.audit?.(plan.value);
      const audited = entry ? auditStatements(client, partnerId, entry, at).statements : [];
      const aggregate = await writePlan(
        client,
        services.files,
        current,
        plan.value,
        at,
        services.storageQuota,
        audited,
      );
      const { event } = plan.value;
      if (event) services.notify([{ eventId: event.id, due: event.occurredAt }]);
      return { outcome: "written", aggregate, plan: plan.value };
    } catch (error) {
      if (error instanceof StorageQuotaExceeded) {
        return { outcome: "refused", problems: [STORAGE_QUOTA_PROBLEM], current };
      }
      if (!(error instanceof WriteConflict)) throw error;
      if (round >= ROUNDS) return { outcome: "refused", problems: [CONCURRENT_MODIFICATION], current };
    }
  }
}
