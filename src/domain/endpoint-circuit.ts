/**
 * A circuit breaker per partner and notification endpoint (its origin): one per mailbox
 * (src/mailbox/durable-object.ts), so one partner's failing endpoint never holds another partner's, even
 * on the same host (CONTRACT 6, fair delivery). Pure: no HTTP, no SQL.
 *
 * An endpoint that keeps timing out or refusing connections holds each attempt for up to 10 s. After
 * THRESHOLD such attempts in a row the circuit opens: deliveries to that endpoint fail fast, without a
 * POST, and are tried again when it closes; the cool-down doubles with each further failure, up to
 * MAX_COOLDOWN_MS. After the cool-down the circuit is half-open: one attempt goes through at a time, and
 * any HTTP answer closes the circuit (the endpoint answered); another timeout opens it again.
 */

/** Attempts a mailbox has in flight at once while its endpoint answers (or its circuit is open). */
export const CONCURRENCY = 4;
export const THRESHOLD = 3;
export const BASE_COOLDOWN_MS = 30_000;
export const MAX_COOLDOWN_MS = 10 * 60_000;

/** Cloudflare's own answers when it could not reach an origin (see notifications/failures.ts). */
const UNREACHABLE_STATUSES = new Set([520, 521, 522, 523, 524, 525, 526, 530]);

export interface Circuit {
  consecutiveFailures: number;
  /** Until then deliveries fail fast; null while the circuit is closed (failures below THRESHOLD). */
  openUntil: number | null;
  lastFailure: string;
}

/** Whether an attempt's outcome says the endpoint could not be reached at all (no answer in time, no connection). */
export function unreachable(outcome: { httpStatus: number | null }): boolean {
  return outcome.httpStatus === null || UNREACHABLE_STATUSES.has(outcome.httpStatus);
}

/** Whether deliveries to the endpoint are held back at `at`. */
export function isOpen(circuit: Circuit | null, at: number): circuit is Circuit & { openUntil: number } {
  return circuit?.openUntil != null && circuit.openUntil > at;
}

/**
 * How many attempts may be in flight at `at`: CONCURRENCY, or one while the circuit is half-open (its
 * cool-down over, no answer since), so that a still failing endpoint costs one more timeout, not four.
 */
export function deliverySlots(circuit: Circuit | null, at: number): number {
  return circuit?.openUntil != null && circuit.openUntil <= at ? 1 : CONCURRENCY;
}

/** The circuit after an attempt that was sent: null (closed, no record) once the endpoint answered. */
export function circuitAfter(
  circuit: Circuit | null,
  outcome: { httpStatus: number | null; error: string | null },
  at: number,
): Circuit | null {
  if (!unreachable(outcome)) return null;
  const consecutiveFailures = (circuit?.consecutiveFailures ?? 0) + 1;
  const opens = consecutiveFailures >= THRESHOLD;
  const cooldown = Math.min(MAX_COOLDOWN_MS, BASE_COOLDOWN_MS * 2 ** (consecutiveFailures - THRESHOLD));
  return {
    consecutiveFailures,
    openUntil: opens ? at + cooldown : null,
    lastFailure: outcome.error ?? "no answer",
  };
}

/** What the delivery log says of a delivery held back by an open circuit. */
export function circuitOpenError(circuit: Circuit & { openUntil: number }, timeZoneFormat: (ms: number) => string) {
  return `not sent: the endpoint failed ${circuit.consecutiveFailures} times in a row (last: ${circuit.lastFailure}); deliveries to it resume at ${timeZoneFormat(circuit.openUntil)}`;
}
