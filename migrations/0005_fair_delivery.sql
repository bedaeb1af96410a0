CREATE TABLE `endpoint_circuits` (
	`endpoint` text PRIMARY KEY NOT NULL,
	`consecutive_failures` integer NOT NULL,
	`open_until` integer,
	`last_failure` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `events` ADD `delivering_to` text;--> statement-breakpoint
ALTER TABLE `events` ADD `replayed_at` integer;--> statement-breakpoint
CREATE INDEX `events_partner_delivering_idx` ON `events` (`partner_id`,`delivering_until`) WHERE "events"."delivering_until" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `events_endpoint_delivering_idx` ON `events` (`delivering_to`,`delivering_until`) WHERE "events"."delivering_until" IS NOT NULL;--> statement-breakpoint
ALTER TABLE `partners` ADD `older_signing_secret_ciphertext` text;--> statement-breakpoint
ALTER TABLE `partners` ADD `older_signing_secret_expires_at` integer;