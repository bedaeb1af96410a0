CREATE VIEW `notification_outcomes` AS select a.id, a.event_id, a.attempted_at, a.http_status, a.error, a.duration_ms, e.status, e.next_attempt_at, e.failed_attempts, e.failure_reason, e.delivered_at from notification_attempts a join events e on e.id = a.event_id;--> statement-breakpoint
-- Written by hand (drizzle-kit knows no triggers): see notificationOutcomes in src/db/schema.ts. One
-- INSERT into the view records an attempt, moves its event on and keeps the event's latest 50 attempts
-- (ATTEMPTS_KEPT_PER_EVENT); test/db/events.test.ts holds the number and the behaviour.
CREATE TRIGGER `notification_outcomes_insert` INSTEAD OF INSERT ON `notification_outcomes`
BEGIN
  INSERT INTO `notification_attempts` (`id`, `event_id`, `attempted_at`, `http_status`, `error`, `duration_ms`)
    VALUES (NEW.`id`, NEW.`event_id`, NEW.`attempted_at`, NEW.`http_status`, NEW.`error`, NEW.`duration_ms`);
  UPDATE `events` SET `status` = NEW.`status`, `next_attempt_at` = NEW.`next_attempt_at`,
    `failed_attempts` = NEW.`failed_attempts`, `failure_reason` = NEW.`failure_reason`,
    `delivered_at` = NEW.`delivered_at`, `delivering_until` = NULL, `delivering_to` = NULL
    WHERE `id` = NEW.`event_id`;
  DELETE FROM `notification_attempts` WHERE `event_id` = NEW.`event_id` AND `id` <= (
    SELECT `id` FROM `notification_attempts` WHERE `event_id` = NEW.`event_id` ORDER BY `id` DESC LIMIT 1 OFFSET 50);
END;
