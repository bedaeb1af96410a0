/**
 * The partner API's side of changing an application (src/applications/change-application.ts): the
 * services taken from the request, and what happened answered as the API answers it. A change written
 * appends its audit entry in its own batch.
 */
import type { Context } from "hono";
import { type ChangeServices, changeApplication, type Planner } from "../applications/change-application";
import { session } from "../auth/require-session";
import { deadlinePolicy } from "../config";
import type { Aggregate } from "../db/applications";
import { type AuditEntry, figuresOfPlan } from "../domain/audit";
import type { Plan } from "../domain/plan";
import type { HonoEnv } from "../env";
import { ApiError } from "../http/errors";
import { publish } from "../notifications/outbox";
import { apiAuditEntry } from "./audit-entry";

/** What a change needs, from the request being served; `audit`, what the log says of it once written. */
export function changeServices(c: Context<HonoEnv>, audit?: (plan: Plan) => AuditEntry): ChangeServices {
  return {
    audit,
    client: c.var.db.client,
    files: c.env.DOCUMENTS,
    archive: c.env.ARCHIVE,
    storageQuota: c.var.config.STORAGE_QUOTA_BYTES,
    deadlines: deadlinePolicy(c.var.config),
    timeZone: c.var.config.SERVICE_TIMEZONE,
    notify: (messages) => c.executionCtx.waitUntil(publish(c.env, c.var.db.shard, messages)),
  };
}

/** The session's partner changes the application: the application as written and the plan, or the 404 or 4xx that says why not. */
export async function changeOrRefuse(
  c: Context<HonoEnv>,
  applicationId: string,
  planner: Planner,
): Promise<{ aggregate: Aggregate; plan: Plan }> {
  const audit = (plan: Plan) => apiAuditEntry(c, { applicationId, ...figuresOfPlan(plan) }, 200);
  const result = await changeApplication(changeServices(c, audit), session(c).partnerId, applicationId, planner);
  if (result.outcome === "not_found") throw ApiError.notFound("application");
  if (result.outcome === "refused") throw ApiError.of(result.problems);
  c.set("audited", true);
  return result;
}
