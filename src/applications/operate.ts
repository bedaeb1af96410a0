/**
 * The life of every state-changing request of an application, the same for the partner API and the
 * gateway: load the aggregate, let the domain plan the change, write the plan as one guarded batch,
 * publish its event after the response. A round that lost a race runs again on fresh state, so the
 * decision is always taken on what the write actually changes.
 */
import type { Context } from "hono";
import { session } from "../auth/require-session";
import { now } from "../clock";
import { config } from "../config";
import { writePlan } from "../db/application-write";
import { type Aggregate, loadAggregate, WriteConflict } from "../db/applications";
import { database } from "../db/client";
import { STORAGE_QUOTA_PROBLEM, StorageQuotaExceeded } from "../db/storage";
import type { Current, Plan, PlanContext } from "../domain/plan";
import type { Problem, Result } from "../domain/result";
import type { HonoEnv } from "../env";
import { ApiError } from "../http/errors";
import { newId } from "../ids";
import { publish } from "../notifications/outbox";

export type Planner = (current: Current, ctx: PlanContext) => Result<Plan>;

export type Attempt =
  | { outcome: "written"; aggregate: Aggregate; plan: Plan }
  | { outcome: "refused"; problems: Problem[]; current: Aggregate }
  | { outcome: "not_found" };

/**
 * Losing every round takes a storm of writes to one application: the client's retry is the remedy, so
 * it gets a clear 409, not a 500 that reads as our fault.
 */
export function conflict(): ApiError {
  return ApiError.of([
    {
      code: "CONCURRENT_MODIFICATION",
      message: "concurrent requests changed the same application; retry the request",
    },
  ]);
}

/** Runs `round` again while it loses races (D1 serialises writes, so some racer wins every round). */
export async function withRetries<T>(round: () => Promise<T>, rounds = 25): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await round();
    } catch (error) {
      if (!(error instanceof WriteConflict)) throw error;
      if (n >= rounds) throw conflict();
    }
  }
}

/** Loads, plans and writes the partner's application; answers what happened. */
export function attempt(
  c: Context<HonoEnv>,
  partnerId: string,
  applicationId: string,
  planner: Planner,
): Promise<Attempt> {
  const db = database(c.env);
  const quota = config(c.env).STORAGE_QUOTA_BYTES;
  return withRetries(async () => {
    const current = await loadAggregate(db, partnerId, applicationId);
    if (!current) return { outcome: "not_found" };
    const at = now();
    const plan = planner(current, { at, newId: () => newId(at) });
    if (!plan.ok) return { outcome: "refused", problems: plan.problems, current };
    let aggregate: Aggregate;
    try {
      aggregate = await writePlan(db, current, plan.value, at, quota);
    } catch (error) {
      if (error instanceof StorageQuotaExceeded)
        return { outcome: "refused", problems: [STORAGE_QUOTA_PROBLEM], current };
      throw error;
    }
    const { event } = plan.value;
    if (event) c.executionCtx.waitUntil(publish(c.env, [{ eventId: event.id, due: event.occurredAt }]));
    return { outcome: "written", aggregate, plan: plan.value };
  });
}

/** For the partner API: the application as written and the plan, or the 404 or 4xx that says why not. */
export async function operate(
  c: Context<HonoEnv>,
  applicationId: string,
  planner: Planner,
): Promise<{ aggregate: Aggregate; plan: Plan }> {
  const result = await attempt(c, session(c).partnerId, applicationId, planner);
  if (result.outcome === "not_found") throw ApiError.notFound("application");
  if (result.outcome === "refused") throw ApiError.of(result.problems);
  return result;
}
