/**
 * Reaching the mailboxes (src/mailbox/durable-object.ts): one per partner and notification endpoint
 * origin. Loaded with the Worker's entry (the object's class is exported there), so it imports nothing
 * but types.
 */
import type { Env } from "../config";
import type { Delivery } from "../db/events";
import { errorFields, log } from "../log";

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

/**
 * Hands claimed events to their mailboxes, each mailbox's in one call, side by side. Answers the ids of
 * those whose mailbox could not take them (their claims are still held: the caller releases them).
 */
export async function handOver(env: Env, deliveries: readonly Delivery[]): Promise<string[]> {
  const byMailbox = new Map<string, Delivery[]>();
  for (const delivery of deliveries) {
    const name = mailboxName(delivery.event.partnerId, delivery.endpoint);
    byMailbox.set(name, [...(byMailbox.get(name) ?? []), delivery]);
  }
  const refused: string[] = [];
  await Promise.all(
    [...byMailbox.values()].map(async (group) => {
      try {
        await mailboxOf(env, group[0]!.event.partnerId, group[0]!.endpoint).accept(group);
      } catch (error) {
        log("warn", "a mailbox did not take its notifications", { events: group.length, ...errorFields(error) });
        refused.push(...group.map((d) => d.event.id));
      }
    }),
  );
  return refused;
}
