/**
 * The queues as wrangler.toml declares them (test/notifications/message.test.ts holds the two equal):
 * the notification queue the Worker produces to and consumes, and its dead-letter queue.
 */
export const NOTIFICATION_QUEUE = "financing-notifications";
export const DEAD_LETTER_QUEUE = "financing-notifications-dlq";

/**
 * What travels on the notification queue: a wake-up for one event, not the event itself. The event row
 * in D1 is the truth of when its next attempt is due; a message whose `due` no longer matches it was
 * overtaken (a retry scheduled anew, a sweep, a resend) and is dropped, so duplicates never POST twice.
 */
export interface NotificationMessage {
  eventId: string;
  /** The event's `nextAttemptAt` when this wake-up was sent; absent in messages of older versions. */
  due?: number;
  /** The shard holding the event (src/db/shards.ts); absent in messages from before shards: 0. */
  shard?: number;
}
