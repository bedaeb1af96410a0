/**
 * The application state machine of the spec and CONTRACT section 4. Pure: no HTTP, no SQL.
 */
import type { RefusalCode } from "./result";

export const APPLICATION_STATES = ["PROCESSING", "READY", "REJECTED", "CANCELLED"] as const;
export type ApplicationState = (typeof APPLICATION_STATES)[number];

export const STATE_REASONS = [
  "PROCESSING_REDIRECT_NEEDED",
  "READY_TO_SHIP",
  "READY_SHIPPED",
  "READY_DELIVERED",
  /** A payout holding the application's sales was paid (CONTRACT 6b); it stays while the application is READY. */
  "READY_PAID",
  "REJECTED",
  "CANCELLED_NOT_PAID",
  "CANCELLED_RETURNED",
  "CANCELLED_EXPIRED",
  "PROCESSING_MANUAL_REVIEW",
] as const;
export type StateReason = (typeof STATE_REASONS)[number];

export const CANCEL_REASONS = [
  "APPLICATION_CANCELLED_CARRIER_CHANGED",
  "APPLICATION_CANCELLED_CART_CONTENT_CHANGED",
  "APPLICATION_CANCELLED_BY_CUSTOMER",
  "APPLICATION_CANCELLED_BY_ERP",
  "APPLICATION_CANCELLED_EXPIRED",
  "APPLICATION_CANCELLED_UNFINISHED",
  "APPLICATION_CANCELLED_BY_ESHOP_RULES",
  "APPLICATION_CANCELLED_OTHER",
] as const;
export type CancelReason = (typeof CANCEL_REASONS)[number];

/** The reason of a cancellation that gives none (CONTRACT 4): the API's, the console's. */
export const DEFAULT_CANCEL_REASON: CancelReason = "APPLICATION_CANCELLED_OTHER";

/** Everything that can be asked of an application. DECIDE is the gateway's approve/reject. */
export const OPERATIONS = [
  "DECIDE",
  "CANCEL",
  "CHANGE_ORDER",
  "CANCEL_ITEMS",
  "SEND",
  "DELIVER",
  "RETURN",
  "REFUND",
  "EXTEND",
] as const;
export type Operation = (typeof OPERATIONS)[number];

export interface ApplicationStatus {
  state: ApplicationState;
  stateReason: StateReason;
  /** True when any order line is SENT, DELIVERED or RETURNED (goods went out). */
  goodsOut: boolean;
}

export type Verdict = { ok: true } | { ok: false; code: RefusalCode; message: string };

/**
 * The transition table. Rules (spec "Application transitions", "Rules per endpoint" 2, CONTRACT 4–5):
 * - DECIDE: only PROCESSING; READY → APPLICATION_ALREADY_DECIDED; REJECTED → APPLICATION_REJECTED;
 *   CANCELLED → APPLICATION_ALREADY_CANCELLED.
 * - CANCEL: PROCESSING ok; READY ok only when !goodsOut, else ORDER_ALREADY_SENT;
 *   REJECTED → APPLICATION_REJECTED; CANCELLED → APPLICATION_ALREADY_CANCELLED.
 * - CHANGE_ORDER, CANCEL_ITEMS: PROCESSING or READY; CHANGE_ORDER in READY also needs !goodsOut
 *   (ORDER_ALREADY_SENT); CANCEL_ITEMS works on unsent lines, which order-lines checks per line.
 * - SEND, DELIVER, RETURN, REFUND, EXTEND: only READY; PROCESSING → APPLICATION_NOT_READY.
 * - Under manual review (PROCESSING_MANUAL_REVIEW) the customer has answered: DECIDE →
 *   APPLICATION_ALREADY_DECIDED, and the order stays as agreed (CHANGE_ORDER, CANCEL_ITEMS →
 *   APPLICATION_NOT_READY); the partner may still cancel the application.
 * REJECTED always answers APPLICATION_REJECTED and CANCELLED APPLICATION_ALREADY_CANCELLED.
 */
export function permits(operation: Operation, status: ApplicationStatus): Verdict {
  // A terminal state refuses every operation with one code: what the partner must learn is the state.
  if (status.state === "REJECTED") return refuse("APPLICATION_REJECTED", "The application was rejected.");
  if (status.state === "CANCELLED") {
    return refuse("APPLICATION_ALREADY_CANCELLED", "The application is already cancelled.");
  }
  const ready = status.state === "READY";
  const underReview = status.stateReason === "PROCESSING_MANUAL_REVIEW";
  switch (operation) {
    case "DECIDE":
      if (underReview) return refuse("APPLICATION_ALREADY_DECIDED", "The customer has answered; the review decides.");
      return ready ? refuse("APPLICATION_ALREADY_DECIDED", "The application was already approved.") : OK;
    case "CANCEL":
      return ready && status.goodsOut
        ? refuse("ORDER_ALREADY_SENT", "The application cannot be cancelled: goods were already sent.")
        : OK;
    case "CHANGE_ORDER":
      if (underReview)
        return refuse("APPLICATION_NOT_READY", "The application is under review: its order stays as agreed.");
      return ready && status.goodsOut
        ? refuse("ORDER_ALREADY_SENT", "The order cannot be changed: goods were already sent.")
        : OK;
    case "CANCEL_ITEMS":
      return underReview
        ? refuse("APPLICATION_NOT_READY", "The application is under review: its order stays as agreed.")
        : OK;
    case "SEND":
    case "DELIVER":
    case "RETURN":
    case "REFUND":
    case "EXTEND":
      return ready ? OK : refuse("APPLICATION_NOT_READY", "The application is not approved yet.");
  }
}

const OK: Verdict = { ok: true };

function refuse(code: RefusalCode, message: string): Verdict {
  return { ok: false, code, message };
}

export interface StateAndReason {
  state: ApplicationState;
  stateReason: StateReason;
}

/**
 * The application's state and reason implied by its lines after an order operation (CONTRACT 4–5):
 * - PROCESSING: all lines CANCELLED → CANCELLED/CANCELLED_NOT_PAID; otherwise unchanged.
 * - READY: all lines CANCELLED → CANCELLED/CANCELLED_NOT_PAID; order RETURNED (deriveOrderState) →
 *   CANCELLED/CANCELLED_RETURNED; every line that is neither CANCELLED nor RETURNED is DELIVERED →
 *   READY_DELIVERED; any line SENT, DELIVERED or RETURNED → READY_SHIPPED; otherwise READY_TO_SHIP;
 *   but READY_PAID stays while the application stays READY: the partner was paid, and that is told once.
 * - REJECTED, CANCELLED: unchanged.
 */
export function stateAfterLines(current: StateAndReason, lineStates: readonly LineState[]): StateAndReason {
  if (current.state !== "PROCESSING" && current.state !== "READY") return current;
  const order = deriveOrderState(lineStates);
  if (order === "CANCELLED") return { state: "CANCELLED", stateReason: "CANCELLED_NOT_PAID" };
  if (current.state === "PROCESSING") return current;
  if (order === "RETURNED") return { state: "CANCELLED", stateReason: "CANCELLED_RETURNED" };
  if (current.stateReason === "READY_PAID") return current;
  if (order === "DELIVERED") return { state: "READY", stateReason: "READY_DELIVERED" };
  return { state: "READY", stateReason: lineStates.some(isOut) ? "READY_SHIPPED" : "READY_TO_SHIP" };
}

export const LINE_STATES = ["PROCESSING", "SENT", "DELIVERED", "RETURNED", "CANCELLED"] as const;
export type LineState = (typeof LINE_STATES)[number];

/**
 * Whether a line in this state went out to the customer: sent, delivered, or returned since (a
 * returned line went out before it came back). The one definition of "goods went out".
 */
export const isOut = (state: LineState): boolean => state === "SENT" || state === "DELIVERED" || state === "RETURNED";

/**
 * The order's state from its lines (CONTRACT 5): all CANCELLED (or no lines) → CANCELLED; otherwise,
 * of the non-cancelled lines, all RETURNED → RETURNED; otherwise the least advanced state
 * (PROCESSING < SENT < DELIVERED) of the lines neither CANCELLED nor RETURNED.
 */
export function deriveOrderState(lineStates: readonly LineState[]): LineState {
  const active = lineStates.filter((s) => s !== "CANCELLED");
  if (active.length === 0) return "CANCELLED";
  const open = active.filter((s) => s !== "RETURNED");
  if (open.length === 0) return "RETURNED";
  return open.reduce((least, s) => (PROGRESS[s] < PROGRESS[least] ? s : least));
}

const PROGRESS: Record<LineState, number> = { PROCESSING: 0, SENT: 1, DELIVERED: 2, RETURNED: 3, CANCELLED: 4 };
