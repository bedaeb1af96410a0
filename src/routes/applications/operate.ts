import type { BatchItem } from "drizzle-orm/batch";
import type { Context } from "hono";
import { session } from "../../auth/require-session";
import { now } from "../../clock";
import {
  type Aggregate,
  type ApplicationPatch,
  applicationWrite,
  commit,
  lineWrites,
  loadAggregate,
  type StoredLine,
  withRetries,
} from "../../db/applications";
import { database } from "../../db/client";
import { type ApplicationStatus, type CancelReason, type Operation, permits } from "../../domain/application-state";
import { applyToLines, type LinesChange } from "../../domain/order-lines";
import type { HonoEnv } from "../../env";
import { ApiError } from "../../http/errors";
import { newId } from "../../ids";
import { publish } from "../../notifications/outbox";

export function statusOf(aggregate: Aggregate): ApplicationStatus {
  return {
    state: aggregate.application.state,
    stateReason: aggregate.application.stateReason,
    goodsOut: aggregate.lines.some((l) => l.state === "SENT" || l.state === "DELIVERED" || l.state === "RETURNED"),
  };
}

/** Refuses with the state machine's 422 unless `operation` is allowed now. */
export function assertPermitted(operation: Operation, aggregate: Aggregate): void {
  const verdict = permits(operation, statusOf(aggregate));
  if (!verdict.ok) throw ApiError.unprocessable(verdict.code, verdict.message);
}

export interface Plan {
  patch: ApplicationPatch;
  lines?: LinesChange;
  /** Further statements of the same write (refunds, documents), run before the line writes. */
  extra?: BatchItem<"sqlite">[];
  /** Documents the write adds, for the answer. */
  documents?: Aggregate["documents"];
}

/**
 * Cancelling the whole application, the same whoever asks (the partner's cancel endpoint, the customer
 * at the gateway): CANCELLED / CANCELLED_NOT_PAID, every line CANCELLED and nothing left financed.
 * Refuses with the state machine's 422 unless CANCEL is allowed now.
 */
export function cancellationPlan(current: Aggregate, reason: CancelReason, customReason?: string | null): Plan {
  assertPermitted("CANCEL", current);
  const lines = applyToLines(current.lines, undefined, (l) => l.state !== "CANCELLED", { state: "CANCELLED" }, newId);
  if (!lines.ok) throw new Error("cancelling every line cannot fail");
  return {
    patch: {
      state: "CANCELLED",
      stateReason: "CANCELLED_NOT_PAID",
      totalAmount: 0,
      cancelReason: reason,
      customCancelReason: customReason ?? null,
    },
    lines: lines.value,
  };
}

/**
 * The life of every state-changing request: load the aggregate, let `decide` (domain rules; it throws
 * the 4xx) plan the change, write it as one guarded batch with its events, publish the events after
 * the response. A lost race re-runs the whole round on fresh state. Answers the aggregate as written.
 */
export async function operate(
  c: Context<HonoEnv>,
  applicationId: string,
  decide: (aggregate: Aggregate, at: number) => Plan | Promise<Plan>,
  partnerId: string = session(c).partnerId,
): Promise<Aggregate> {
  const db = database(c.env);
  return withRetries(async () => {
    const current = await loadAggregate(db, partnerId, applicationId);
    const at = now();
    const plan = await decide(current, at);
    const { statements, eventIds, next } = applicationWrite(db, current.application, plan.patch, at);
    await commit(db, [...statements, ...(plan.extra ?? []), ...(plan.lines ? lineWrites(db, plan.lines, at) : [])]);
    c.executionCtx.waitUntil(publish(c.env, eventIds));
    return {
      application: next,
      lines: (plan.lines?.lines as StoredLine[]) ?? current.lines,
      documents: [...current.documents, ...(plan.documents ?? [])],
    };
  });
}
