/**
 * When a notification is tried again (CONTRACT 6). Pure: no HTTP, no SQL.
 *
 * Delays before retries 1..12: 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, then 12 h six times. Each is
 * jittered by ±10 % (so that receivers coming back from an outage are not hit by every sender at once)
 * and never longer than 12 h, the queue's longest delay per hop. Even with every delay at its shortest
 * the thirteen attempts span more than 72 hours (80.6 h; 89.6 h nominal).
 */
export const RETRY_DELAYS_SECONDS = [
  60, 300, 1800, 7200, 18000, 36000, 43200, 43200, 43200, 43200, 43200, 43200,
] as const;

/** The queue's longest delay of one message (12 hours). */
export const MAX_HOP_SECONDS = 43200;
const JITTER = 0.1;

/**
 * The delay before the next attempt after `failedAttempts` failed attempts (1-based: after the first
 * failed attempt the delay is about 60 s), or null when the schedule is spent and the event fails.
 * `random` is in [0, 1); it spreads the delay over ±10 %.
 */
export function retryDelaySeconds(failedAttempts: number, random: number = Math.random()): number | null {
  // A count below 1 (or NaN) can only come from a caller's slip; retrying soon is safer than never.
  const attempts = failedAttempts >= 1 ? Math.floor(failedAttempts) : 1;
  const nominal = RETRY_DELAYS_SECONDS[attempts - 1];
  if (nominal === undefined) return null;
  return Math.min(MAX_HOP_SECONDS, Math.round(nominal * (1 - JITTER + 2 * JITTER * random)));
}

/** How long a receiver that answered 429 or 503 asked to be left alone, at most 72 hours (undefined: not said). */
export function retryAfterSeconds(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  const seconds = /^\d+$/.test(value) ? Number(value) : (Date.parse(value) - now) / 1000;
  if (!Number.isFinite(seconds)) return undefined;
  return Math.min(72 * 3600, Math.max(0, Math.ceil(seconds)));
}

/** An event's delivery: PENDING until delivered (DELIVERED) or given up (FAILED). */
export const DELIVERY_STATUSES = ["PENDING", "DELIVERED", "FAILED"] as const;

/** What follows a delivery attempt: delivered, failed for good, or the next attempt's time. */
export type AfterAttempt =
  | { status: "DELIVERED"; deliveredAt: number }
  | { status: "FAILED"; failureReason: string; failedAttempts: number }
  | { status: "PENDING"; nextAttemptAt: number; failedAttempts: number };

/** How an attempt ended: the receiver's HTTP status, or none when it could not be reached. */
export interface AttemptOutcome {
  httpStatus: number | null;
  /** What went wrong, in words a partner can act on (null when delivered). */
  error: string | null;
  /** The receiver's Retry-After, when it sent one. */
  retryAfter: string | null;
}

export const isDelivered = (outcome: Pick<AttemptOutcome, "httpStatus">) =>
  outcome.httpStatus !== null && outcome.httpStatus >= 200 && outcome.httpStatus < 300;

/**
 * What follows a failed attempt, the `failedAttempts`-th: 410 Gone ends the deliveries; past the
 * schedule the event fails; otherwise the next attempt follows the schedule, never sooner than a 429
 * or 503 receiver's Retry-After, nor than `notBefore` (an open circuit, endpoint-circuit.ts).
 */
export function afterFailure(
  failedAttempts: number,
  outcome: AttemptOutcome,
  at: number,
  notBefore = 0,
  random: number = Math.random(),
): AfterAttempt {
  if (outcome.httpStatus === 410) {
    return {
      status: "FAILED",
      failedAttempts,
      failureReason: "HTTP 410 Gone: the endpoint asked for no more deliveries",
    };
  }
  const scheduled = retryDelaySeconds(failedAttempts, random);
  if (scheduled === null) {
    return {
      status: "FAILED",
      failedAttempts,
      failureReason: `no 2xx answer in ${failedAttempts} attempts over 72 hours; last: ${outcome.error}`,
    };
  }
  // A receiver that is busy or down for maintenance says when to come back: never sooner.
  const asked =
    outcome.httpStatus === 429 || outcome.httpStatus === 503 ? retryAfterSeconds(outcome.retryAfter, at) : undefined;
  const delay = Math.max(scheduled, asked ?? 0);
  return { status: "PENDING", failedAttempts, nextAttemptAt: Math.max(at + delay * 1000, notBefore) };
}
