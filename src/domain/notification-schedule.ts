/** Delays before retry 1..8 of a notification (CONTRACT 6): 1 min, 5 min, 15 min, 1 h, 3 h, 6 h, 12 h, 12 h. */
export const RETRY_DELAYS_SECONDS = [60, 300, 900, 3600, 10800, 21600, 43200, 43200] as const;

/**
 * The delay before the next attempt after `failedAttempts` failed attempts (1-based: after the first
 * failed attempt the delay is 60 s), or null when the schedule is exhausted (after the 9th attempt,
 * i.e. the 8th retry, failed) and the event is to be dead-lettered.
 */
export function retryDelaySeconds(failedAttempts: number): number | null {
  // A count below 1 (or NaN) can only come from a caller's slip; retrying soon is safer than never.
  const attempts = failedAttempts >= 1 ? Math.floor(failedAttempts) : 1;
  return RETRY_DELAYS_SECONDS[attempts - 1] ?? null;
}
