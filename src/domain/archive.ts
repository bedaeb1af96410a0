/**
 * When a finished application leaves the database for the archive (issue 49, docs/operations.md): the
 * rule, and what its tombstone keeps. Pure: no SQL, no R2.
 *
 * "Nothing left to happen" is what the service itself would still do to the application, unasked:
 * - its state is final: CANCELLED or REJECTED, or READY with every line delivered, returned or
 *   cancelled (goods still in transit await their delivery, goods unsent their authorization);
 * - no deadline, reminder or review is due (`nextDueAt` null);
 * - no notification is still being delivered (no PENDING event): its attempts would write to rows
 *   the archive moves;
 * - every settlement entry is in a payout that was PAID and whose applications were told (READY_PAID):
 *   an open entry, or one in a PENDING or FAILED payout, still moves money and may still change the
 *   application;
 * - and it has been so, unchanged, for the archive's age.
 * What a partner may still ask (a late refund, a return, tracking) is not "left to happen": it can come
 * at any time, and brings the application back (src/db/archive.ts, restore) before it is done.
 */
import type { ApplicationState, StateReason } from "./application-state";

/** The states an application is finished in whatever its lines; and READY's reasons once its goods all arrived. */
export const FINISHED_STATES = ["CANCELLED", "REJECTED"] as const satisfies readonly ApplicationState[];
export const FINISHED_READY_REASONS = ["READY_DELIVERED", "READY_PAID"] as const satisfies readonly StateReason[];

/** Line states that still wait for something: goods to send (PROCESSING) or to arrive (SENT). */
export const UNFINISHED_LINE_STATES = ["PROCESSING", "SENT"] as const;

/** What the rule reads of an application and what it is waiting on. */
export interface ArchiveFacts {
  state: ApplicationState;
  stateReason: StateReason;
  lineStates: readonly string[];
  nextDueAt: number | null;
  /** When it last changed, on its own clock (a sandbox's advance moves it back). */
  idleSince: number;
  /** Its events still being delivered. */
  pendingEvents: number;
  /** Its settlement entries not yet in a PAID payout whose applications were told. */
  unpaidEntries: number;
}

/** Whether the application's state is final: nothing it waits on can change it any more. */
export function finished(facts: Pick<ArchiveFacts, "state" | "stateReason" | "lineStates">): boolean {
  if ((FINISHED_STATES as readonly string[]).includes(facts.state)) return true;
  return (
    facts.state === "READY" &&
    (FINISHED_READY_REASONS as readonly string[]).includes(facts.stateReason) &&
    !facts.lineStates.some((s) => (UNFINISHED_LINE_STATES as readonly string[]).includes(s))
  );
}

/** Whether the application goes to the archive at `at`, with the archive's age `afterMs`. */
export function archivable(facts: ArchiveFacts, at: number, afterMs: number): boolean {
  return (
    finished(facts) &&
    facts.nextDueAt === null &&
    facts.pendingEvents === 0 &&
    facts.unpaidEntries === 0 &&
    facts.idleSince <= at - afterMs
  );
}

/**
 * What the tombstone's row holds in place of the application's content (the object keeps it all): no
 * customer, no order details or merchant URLs, no e-mail, no decision record or accepted offer. It
 * keeps what the live rows around it need: its id and partner (reads by id, the 404 of another
 * partner's), its state and order number (the order look-up, the console's search of the
 * variable symbols kept beside it), its totals and currency (the settlement entries kept in D1 name
 * them), its version (the guard a restore races on).
 */
export const TOMBSTONE = {
  customer: {},
  orderDetails: {},
  merchantUrls: {},
  customerEmail: "",
  decisionReasons: null,
  acceptedOffer: null,
  duplicateFingerprint: null,
} as const;
