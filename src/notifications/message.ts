/** What travels on the notification queue: only the event id; the consumer reads the rest from D1. */
export interface NotificationMessage {
  eventId: string;
}
