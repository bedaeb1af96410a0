/**
 * Reaching the mailboxes (src/mailbox/durable-object.ts): one per partner and notification endpoint
 * origin. Loaded with the Worker's entry (the object's class is exported there), so it imports nothing
 * but types.
 */
import type { Env } from "../config";

/**
 * How long a claim holds an event, and an attempt its slot, before either counts as lost: the POST's
 * 10 s timeout (src/notifications/failures.ts) and time to record the outcome. A mailbox that lost an
 * attempt (its instance gone) claims the event again then; the sweep leaves a claimed event alone.
 */
export const LEASE_MS = 30_000;

/** A wake-up or a retry this much early is sent now: less than a queue hop or an alarm is worth. */
export const EARLY_MS = 1_000;

/**
 * The mailbox's name: the partner and the endpoint's origin, so that no two partners share one, even
 * on one host. An endpoint that is no URL gets a mailbox of its own, where it fails unsent.
 */
export function mailboxName(partnerId: string, endpoint: string): string {
  return `${partnerId} ${URL.canParse(endpoint) ? new URL(endpoint).origin : endpoint}`;
}

export function mailboxOf(env: Env, partnerId: string, endpoint: string) {
  return env.ENDPOINT_MAILBOXES.get(env.ENDPOINT_MAILBOXES.idFromName(mailboxName(partnerId, endpoint)));
}
