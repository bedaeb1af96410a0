CREATE TABLE `audit_events` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`occurred_at` integer NOT NULL,
	`source` text NOT NULL,
	`actor_type` text NOT NULL,
	`actor_id` text,
	`actor_name` text,
	`operation` text NOT NULL,
	`application_id` text,
	`amount` integer,
	`currency` text,
	`reason` text,
	`subject` text,
	`address` text,
	`outcome` text NOT NULL,
	`code` text
);
--> statement-breakpoint
CREATE INDEX `audit_events_partner_id_idx` ON `audit_events` (`partner_id`,`id`);--> statement-breakpoint
CREATE INDEX `audit_events_partner_occurred_idx` ON `audit_events` (`partner_id`,`occurred_at`,`id`);--> statement-breakpoint
CREATE INDEX `audit_events_partner_operation_idx` ON `audit_events` (`partner_id`,`operation`,`id`);--> statement-breakpoint
CREATE INDEX `audit_events_partner_actor_idx` ON `audit_events` (`partner_id`,`actor_id`,`id`);--> statement-breakpoint
CREATE INDEX `audit_events_partner_application_idx` ON `audit_events` (`partner_id`,`application_id`,`id`);--> statement-breakpoint
CREATE INDEX `audit_events_partner_outcome_idx` ON `audit_events` (`partner_id`,`outcome`,`id`);--> statement-breakpoint
CREATE TABLE `console_people` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`password_hash` text,
	`totp_secret_ciphertext` text,
	`totp_last_step` integer,
	`setup_token_hash` text,
	`setup_expires_at` integer,
	`activated_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`partner_id`) REFERENCES `partners`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `console_people_partner_email_idx` ON `console_people` (`partner_id`,`email`);--> statement-breakpoint
CREATE UNIQUE INDEX `console_people_setup_idx` ON `console_people` (`setup_token_hash`);--> statement-breakpoint
ALTER TABLE `partners` ADD `audit_bytes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `partners` ADD `support_refund_limits` text;--> statement-breakpoint
-- Written by hand (drizzle-kit knows no triggers): the audit log is append-only, an entry is never changed.
CREATE TRIGGER `audit_events_append_only` BEFORE UPDATE ON `audit_events`
BEGIN
	SELECT RAISE(ABORT, 'audit_events is append-only');
END;
