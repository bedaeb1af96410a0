/**
 * What an operation on an application decides, as plain data: the application's new state and totals,
 * its lines, the refund, the document and the event to store. The plan* functions (application-
 * operations.ts, order-operations.ts) build plans; src/db/application-write.ts writes them as one
 * guarded batch. Pure: no HTTP, no SQL.
 */

import { jsonBytes, linesBytes, MAX_APPLICATION_BYTES, MAX_DOCUMENTS, MAX_LINES } from "./application-size";
import {
  type ApplicationState,
  type ApplicationStatus,
  type CancelReason,
  type Operation,
  permits,
  type StateAndReason,
  type StateReason,
  stateAfterLines,
} from "./application-state";
import { authorization, type DeadlinePolicy, type Deadlines, hasUnsentGoods, nextDue } from "./deadlines";
import { approve, ledgerOf, type Movement, move, wentOutAmount } from "./ledger";
import type { Offer } from "./offer";
import { financedAmount, type Line, type LinesChange, wentOut } from "./order-lines";
import type { PartnerTerms } from "./partner-terms";
import { ok, type Problem, problem, type Result, refused } from "./result";
import { type SettledApplication, type SettlementEntry, settlementEntries } from "./settlement-entries";
import { type Shipment, sentBy, shipmentOf } from "./shipments";

/** The application as the rules see it. */
export interface ApplicationFacts {
  id: string;
  type: string;
  state: ApplicationState;
  stateReason: StateReason;
  currency: string;
  approvedAmount: number | null;
  refundedAmount: number;
  agreementTermsAndConditions: boolean;
  customerEmail: string;
  /** Sequence of the last event written; the next event takes the next number. */
  eventSequence: number;
  /** Grows by one with every write: what the gateway's offer token names (see offer.ts). */
  version: number;
  /** When the application was decided (approved or rejected); the base of the authorization's cap. */
  decidedAt: number | null;
  /** The deadlines that apply now (deadlines.ts). */
  expiresAt: number | null;
  reminderAt: number | null;
  reviewAt: number | null;
  /** What a pending manual review settles to. */
  reviewOutcome: "APPROVE" | "REJECT" | null;
  /** What the application holds, as application-size.ts measures it. */
  contentBytes: number;
  /** When it last changed, on its own clock: the archive's age counts from it (archive.ts). */
  idleSince: number;
}

/**
 * What settling an application's money needs (CONTRACT 6b): whose sales they are and of what order, the
 * partner's terms in force, and the shipments its lines went out in so far.
 */
export interface SettlementFacts {
  application: SettledApplication;
  deliveryCarrier: { carrierId: string } | null;
  terms: PartnerTerms;
  shipments: readonly Pick<Shipment, "id" | "lineIds">[];
}

export interface Current {
  application: ApplicationFacts;
  lines: readonly Line[];
  /** The documents kept with the order (only how many matters to the rules). */
  documents: readonly unknown[];
  settlement: SettlementFacts;
}

export interface PlanContext {
  /** The instant of the operation (Unix milliseconds): every deadline is judged at it. */
  at: number;
  /** The service's calendar date at `at` (YYYY-MM-DD, in SERVICE_TIMEZONE): what "today" defaults to. */
  today: string;
  newId: () => string;
  /** How long the customer and an authorization have (the Worker's variables). */
  deadlines: DeadlinePolicy;
}

/** The application's fields after the operation. */
export interface ApplicationUpdate {
  state: ApplicationState;
  stateReason: StateReason;
  /** The financed total, kept on the application for sorting and filtering lists. */
  totalAmount: number;
  approvedAmount: number | null;
  refundedAmount: number;
  eventSequence: number;
  /** What the application holds after the operation (application-size.ts). */
  contentBytes: number;
  decisionReasons?: string[];
  decidedAt?: number | null;
  cancelReason?: CancelReason;
  customCancelReason?: string | null;
  agreementTermsAndConditions?: boolean;
  /** The offer the customer accepted, recorded with the approval. */
  acceptedOffer?: Offer;
  /** The deadlines after the operation (always set: finish() decides them) and the earliest of them. */
  expiresAt: number | null;
  reminderAt: number | null;
  reviewAt: number | null;
  nextDueAt: number | null;
  reviewOutcome?: "APPROVE" | "REJECT" | null;
  /** Set only by a sandbox's advance of the clock, which moves it back; every other write sets its instant. */
  idleSince?: number;
}

export interface RefundRecord {
  id: string;
  /** RETURN when a return refunds, REFUND when the refunds endpoint does. */
  origin: "RETURN" | "REFUND";
  amount: number;
  currency: string;
  reason: string | null;
  variableSymbol: string | null;
  createdAt: number;
}

export interface DocumentRecord {
  id: string;
  type: string;
  filename: string;
  description: string | null;
  mimeType: string;
  /** Base64, as accepted. */
  content: string;
  size: number;
  variableSymbol: string | null;
  createdAt: number;
}

export const EVENT_TYPES = ["APPLICATION_STATE_CHANGED", "AUTHORIZATION_EXPIRING"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface EventRecord {
  id: string;
  /** APPLICATION_STATE_CHANGED for every change of state or reason; AUTHORIZATION_EXPIRING for a reminder. */
  type: EventType;
  sequence: number;
  state: ApplicationState;
  stateReason: StateReason;
  /** The application's deadline when the event occurred, if one applied. */
  expiresAt: number | null;
  occurredAt: number;
}

export interface Plan {
  application: ApplicationUpdate;
  /** The lines after the operation, when it touched them; `replace` when new content replaced them all. */
  lines?: LinesChange & { replace?: boolean };
  refund?: RefundRecord;
  document?: DocumentRecord;
  /** One for every change of state or state reason (CONTRACT 6). */
  event?: EventRecord;
  /** Every send is a shipment, and so is a delivery of goods not sent before (CONTRACT 6b). */
  shipment?: Shipment;
  /** What the operation owes the partner, written with it (settlement-entries.ts); none when nothing moves. */
  entries?: SettlementEntry[];
}

/** What an operation did, before the ledger and the state machine settle the rest. */
export interface Outcome {
  lines?: LinesChange & { replace?: boolean };
  /** The money the operation moves; the financed total always follows from the lines. */
  movement?: Omit<Movement, "financed">;
  /** A refund record for `movement.refund`, when it is more than zero. */
  refund?: Pick<RefundRecord, "origin" | "reason" | "variableSymbol">;
  document?: Omit<DocumentRecord, "id" | "createdAt">;
  /** Set by decisions and cancellations; otherwise the state follows from the lines. */
  next?: StateAndReason;
  /** Approval fixes the approved amount at the financed total, and starts the authorization's deadline. */
  approve?: boolean;
  /** Deadlines the operation sets itself (a review, an extension); otherwise finish() carries or ends them. */
  deadlines?: Partial<Deadlines>;
  /** An event although neither state nor reason changes (a reminder). */
  event?: EventType;
  /** The operation sends goods: their shipment's reference and first tracking number, as the partner gave them. */
  shipping?: { reference?: string | undefined; deliveryTrackingNumber?: string | undefined };
  fields?: Pick<
    ApplicationUpdate,
    | "decisionReasons"
    | "decidedAt"
    | "cancelReason"
    | "customCancelReason"
    | "agreementTermsAndConditions"
    | "acceptedOffer"
    | "reviewOutcome"
  >;
}

/** The refusal of content past MAX_APPLICATION_BYTES, at `attribute` of the request. */
export function sizeLimitProblem(attribute: string): Problem {
  return problem(
    "APPLICATION_SIZE_LIMIT_REACHED",
    `an application holds at most ${MAX_APPLICATION_BYTES / 1024} KiB of order content (its items' identifiers and texts, the customer and the order details), and acting on part of an item copies it; act on whole items, or shorten the texts`,
    attribute,
  );
}

/** What an application's customer, order details and merchant URLs hold: its content besides the lines. */
export const detailsBytes = (details: { customer: unknown; orderDetails: unknown; merchantUrls: unknown }) =>
  jsonBytes(details.customer) + jsonBytes(details.orderDetails) + jsonBytes(details.merchantUrls);

/** The facts the state machine reads. */
export function statusOf(current: Current): ApplicationStatus {
  return {
    state: current.application.state,
    stateReason: current.application.stateReason,
    goodsOut: current.lines.some(wentOut),
  };
}

/** The state machine's refusal of `operation` now, if it refuses. */
export function refusalOf(operation: Operation, current: Current): Problem | undefined {
  const verdict = permits(operation, statusOf(current));
  return verdict.ok ? undefined : problem(verdict.code, verdict.message);
}

/**
 * The deadlines after an operation (deadlines.ts): an approval starts the authorization; what the
 * operation sets itself stands; otherwise each deadline lives on while what it waits for does (the
 * customer's answer, the review, goods to send) and ends with it.
 */
function deadlinesAfter(
  app: ApplicationFacts,
  next: StateAndReason,
  lines: readonly Line[],
  outcome: Outcome,
  ctx: PlanContext,
): Deadlines {
  const carried: Deadlines = { expiresAt: null, reminderAt: null, reviewAt: null };
  if (next.state === "PROCESSING" && next.stateReason === "PROCESSING_REDIRECT_NEEDED") {
    carried.expiresAt = app.expiresAt;
  } else if (next.state === "PROCESSING" && next.stateReason === "PROCESSING_MANUAL_REVIEW") {
    carried.reviewAt = app.reviewAt;
  } else if (next.state === "READY" && hasUnsentGoods(lines)) {
    const started = outcome.approve ? authorization(ctx.at + ctx.deadlines.authorizationMs, ctx.deadlines) : app;
    carried.expiresAt = started.expiresAt;
    carried.reminderAt = started.reminderAt;
  }
  return { ...carried, ...outcome.deadlines };
}

/**
 * Completes an operation's outcome into a plan: the ledger decides whether the money may move (and
 * refuses otherwise), the state follows from the lines unless the operation set it, the deadlines
 * follow from the state (deadlinesAfter), and a change of state or reason gets its event with the next
 * sequence number.
 */
export function finish(current: Current, outcome: Outcome, ctx: PlanContext): Result<Plan> {
  const app = current.application;
  const lines = outcome.lines?.lines ?? current.lines;
  if (lines.length > MAX_LINES) {
    return refused(
      problem(
        "LINE_LIMIT_REACHED",
        `an application holds at most ${MAX_LINES} order lines, and acting on part of a line adds one; act on whole lines`,
        "items",
      ),
    );
  }
  const contentBytes = outcome.lines
    ? app.contentBytes - linesBytes(current.lines) + linesBytes(lines)
    : app.contentBytes;
  // Only growth is refused: what shrinks an application stored before the budget existed stays possible.
  if (contentBytes > MAX_APPLICATION_BYTES && contentBytes > app.contentBytes)
    return refused(sizeLimitProblem("items"));
  if (outcome.document && current.documents.length >= MAX_DOCUMENTS) {
    return refused(
      problem("DOCUMENT_LIMIT_REACHED", `an application keeps at most ${MAX_DOCUMENTS} documents`, "document"),
    );
  }
  const moved = move(ledgerOf(app, current.lines), {
    ...outcome.movement,
    financed: financedAmount(lines),
    wentOut: wentOutAmount(lines),
  });
  if (!moved.ok) return moved;
  const ledger = outcome.approve ? approve(moved.value) : moved.value;
  const next =
    outcome.next ??
    stateAfterLines(
      app,
      lines.map((l) => l.state),
    );
  const changed = next.state !== app.state || next.stateReason !== app.stateReason;
  const eventType: EventType | undefined = changed ? "APPLICATION_STATE_CHANGED" : outcome.event;
  const sequence = app.eventSequence + (eventType ? 1 : 0);
  const deadlines = deadlinesAfter(app, next, lines, outcome, ctx);
  const refund = outcome.movement?.refund ?? 0;
  const refundRecord: RefundRecord | undefined =
    outcome.refund && refund > 0
      ? { id: ctx.newId(), ...outcome.refund, amount: refund, currency: app.currency, createdAt: ctx.at }
      : undefined;
  const { settlement } = current;
  const shipment = outcome.shipping
    ? shipmentOf(
        sentBy(current.lines, lines),
        outcome.shipping,
        { currency: app.currency, deliveryCarrier: settlement.deliveryCarrier },
        ctx,
      )
    : undefined;
  const entries = settlementEntries(
    settlement.application,
    {
      before: current.lines,
      after: lines,
      refund: refundRecord,
      shipments: shipment ? [...settlement.shipments, shipment] : settlement.shipments,
    },
    settlement.terms,
    ctx,
  );
  return ok({
    application: {
      ...outcome.fields,
      state: next.state,
      stateReason: next.stateReason,
      totalAmount: ledger.financed,
      approvedAmount: ledger.approved,
      refundedAmount: ledger.refunded,
      eventSequence: sequence,
      contentBytes,
      ...deadlines,
      nextDueAt: nextDue(deadlines),
    },
    ...(outcome.lines ? { lines: outcome.lines } : {}),
    ...(refundRecord ? { refund: refundRecord } : {}),
    ...(shipment ? { shipment } : {}),
    ...(entries.length > 0 ? { entries } : {}),
    ...(outcome.document ? { document: { id: ctx.newId(), ...outcome.document, createdAt: ctx.at } } : {}),
    ...(eventType
      ? {
          event: {
            id: ctx.newId(),
            type: eventType,
            sequence,
            state: next.state,
            stateReason: next.stateReason,
            expiresAt: deadlines.expiresAt,
            occurredAt: ctx.at,
          },
        }
      : {}),
  });
}

/** The application, its lines, documents and shipments as the plan leaves them (written, so one version on). */
export function applyPlan<A extends ApplicationFacts, L extends Line, D>(
  current: { application: A; lines: readonly L[]; documents: readonly D[]; settlement: SettlementFacts },
  plan: Plan,
): {
  application: A & ApplicationUpdate;
  lines: readonly (L | Line)[];
  documents: readonly (D | DocumentRecord)[];
  settlement: SettlementFacts;
} {
  const { settlement } = current;
  return {
    application: { ...current.application, ...plan.application, version: current.application.version + 1 },
    lines: plan.lines?.lines ?? current.lines,
    documents: plan.document ? [...current.documents, plan.document] : current.documents,
    settlement: plan.shipment ? { ...settlement, shipments: [...settlement.shipments, plan.shipment] } : settlement,
  };
}
