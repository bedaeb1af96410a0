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
