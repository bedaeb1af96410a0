/**
 * The deadlines in an application's life (CONTRACT 6a). Pure: no HTTP, no SQL.
 *
 * - Awaiting the customer (PROCESSING_REDIRECT_NEEDED), the customer must decide by `expiresAt`:
 *   creation + CUSTOMER_DECISION_TTL_SECONDS.
 * - Approved (READY) with goods not yet sent, the authorization lasts until `expiresAt`: approval +
 *   AUTHORIZATION_TTL_DAYS, extendable up to AUTHORIZATION_MAX_DAYS after approval; one reminder
 *   (AUTHORIZATION_EXPIRING) is due AUTHORIZATION_REMINDER_DAYS before it (`reminderAt`, cleared once
 *   sent, set again by an extension).
 * - Under manual review (PROCESSING_MANUAL_REVIEW), the review settles at `reviewAt`.
 * Otherwise nothing is due. Every rule judges them at the moment it is asked (`at`), so an operation
 * after a deadline is refused even before the scheduled sweep applies the lapse.
 */
import type { Line } from "./order-lines";
import { type Problem, problem } from "./result";

export interface DeadlinePolicy {
  customerDecisionMs: number;
  authorizationMs: number;
  authorizationMaxMs: number;
  reminderMs: number;
}

export interface Deadlines {
  expiresAt: number | null;
  reminderAt: number | null;
  reviewAt: number | null;
}

export const NO_DEADLINES: Deadlines = { expiresAt: null, reminderAt: null, reviewAt: null };

/** The next moment something is due for the application, if any: what the sweep looks for. */
export function nextDue(deadlines: Deadlines): number | null {
  const due = [deadlines.expiresAt, deadlines.reminderAt, deadlines.reviewAt].filter((t): t is number => t !== null);
  return due.length > 0 ? Math.min(...due) : null;
}

/** The authorization of goods approved (or extended) at `at`, running until `expiresAt`, and its reminder. */
export function authorization(expiresAt: number, policy: DeadlinePolicy): Deadlines {
  return { expiresAt, reminderAt: expiresAt - policy.reminderMs, reviewAt: null };
}

/** Whether `expiresAt` has passed at `at`. */
export const lapsed = (application: { expiresAt: number | null }, at: number): boolean =>
  application.expiresAt !== null && application.expiresAt <= at;

/** Goods not yet sent (a DISCOUNT line goes with the goods, so it alone keeps no authorization alive). */
export const hasUnsentGoods = (lines: readonly Line[]): boolean =>
  lines.some((l) => l.state === "PROCESSING" && l.type !== "DISCOUNT");

/**
 * The refusal of what a passed deadline ended (AUTHORIZATION_EXPIRED): the customer's answer, sending
 * goods not yet sent, changing or extending. One wording wherever a deadline is judged.
 */
export function expiredProblem(expiresAt: number | null): Problem {
  const when = expiresAt === null ? "an earlier time" : new Date(expiresAt).toISOString();
  return problem(
    "AUTHORIZATION_EXPIRED",
    `the deadline passed at ${when}: what it allowed lapsed (the customer's answer, or sending the goods not yet sent), and it can no longer be extended; create a new application for what remains`,
  );
}
