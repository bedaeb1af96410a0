DROP INDEX `events_status_idx`;--> statement-breakpoint
-- Hand-edited: SQLite adds a NOT NULL column to a table with rows only with a default; the rows then
-- take their application's partner, and PENDING events become due at once (the sweep delivers them).
ALTER TABLE `events` ADD `partner_id` text DEFAULT '' NOT NULL;--> statement-breakpoint
UPDATE `events` SET `partner_id` = (SELECT `partner_id` FROM `applications` WHERE `applications`.`id` = `events`.`application_id`);--> statement-breakpoint
ALTER TABLE `events` ADD `type` text DEFAULT 'APPLICATION_STATE_CHANGED' NOT NULL;--> statement-breakpoint
ALTER TABLE `events` ADD `next_attempt_at` integer;--> statement-breakpoint
UPDATE `events` SET `next_attempt_at` = `occurred_at` WHERE `status` = 'PENDING';--> statement-breakpoint
ALTER TABLE `events` ADD `failed_attempts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `events` ADD `delivering_until` integer;--> statement-breakpoint
ALTER TABLE `events` ADD `failure_reason` text;--> statement-breakpoint
CREATE INDEX `events_due_idx` ON `events` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `events_partner_id_idx` ON `events` (`partner_id`,`id`);--> statement-breakpoint
CREATE INDEX `events_partner_status_idx` ON `events` (`partner_id`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `events_partner_occurred_idx` ON `events` (`partner_id`,`occurred_at`,`id`);--> statement-breakpoint
ALTER TABLE `events` DROP COLUMN `enqueued_at`;--> statement-breakpoint
ALTER TABLE `idempotency_keys` ADD `lease_until` integer;--> statement-breakpoint
ALTER TABLE `partners` ADD `signing_secret_ciphertext` text;--> statement-breakpoint
ALTER TABLE `partners` ADD `previous_signing_secret_ciphertext` text;--> statement-breakpoint
ALTER TABLE `partners` ADD `previous_signing_secret_expires_at` integer;