CREATE TABLE `access_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	`revoked_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`partner_id`) REFERENCES `partners`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `access_tokens_partner_idx` ON `access_tokens` (`partner_id`,`expires_at`);--> statement-breakpoint
CREATE TABLE `applications` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`type` text NOT NULL,
	`state` text NOT NULL,
	`state_reason` text NOT NULL,
	`agreement_terms_and_conditions` integer NOT NULL,
	`customer` text NOT NULL,
	`order_details` text NOT NULL,
	`merchant_urls` text NOT NULL,
	`order_number` text NOT NULL,
	`customer_email` text NOT NULL,
	`variable_symbols` text NOT NULL,
	`currency` text NOT NULL,
	`total_amount` integer NOT NULL,
	`approved_amount` integer,
	`refunded_amount` integer DEFAULT 0 NOT NULL,
	`decision_reasons` text,
	`decided_at` integer,
	`cancel_reason` text,
	`custom_cancel_reason` text,
	`duplicate_fingerprint` text,
	`event_sequence` integer DEFAULT 0 NOT NULL,
	`version` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`partner_id`) REFERENCES `partners`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `applications_duplicate_idx` ON `applications` (`partner_id`,`duplicate_fingerprint`);--> statement-breakpoint
CREATE INDEX `applications_partner_id_idx` ON `applications` (`partner_id`,`id`);--> statement-breakpoint
CREATE INDEX `applications_partner_created_idx` ON `applications` (`partner_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `applications_partner_updated_idx` ON `applications` (`partner_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `applications_partner_state_idx` ON `applications` (`partner_id`,`state`,`id`);--> statement-breakpoint
CREATE INDEX `applications_partner_reason_idx` ON `applications` (`partner_id`,`state_reason`,`id`);--> statement-breakpoint
CREATE INDEX `applications_partner_type_idx` ON `applications` (`partner_id`,`type`,`id`);--> statement-breakpoint
CREATE INDEX `applications_partner_order_number_idx` ON `applications` (`partner_id`,`order_number`,`id`);--> statement-breakpoint
CREATE INDEX `applications_partner_total_idx` ON `applications` (`partner_id`,`total_amount`,`id`);--> statement-breakpoint
CREATE INDEX `applications_partner_email_idx` ON `applications` (`partner_id`,`customer_email`,`id`);--> statement-breakpoint
CREATE INDEX `applications_partner_vs_idx` ON `applications` (`partner_id`,`variable_symbols`,`id`);--> statement-breakpoint
CREATE TABLE `documents` (
	`id` text PRIMARY KEY NOT NULL,
	`application_id` text NOT NULL,
	`type` text NOT NULL,
	`filename` text NOT NULL,
	`mime_type` text NOT NULL,
	`content` text NOT NULL,
	`description` text,
	`variable_symbol` text,
	`size` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `documents_application_idx` ON `documents` (`application_id`,`id`);--> statement-breakpoint
CREATE TABLE `events` (
	`id` text PRIMARY KEY NOT NULL,
	`application_id` text NOT NULL,
	`sequence` integer NOT NULL,
	`state` text NOT NULL,
	`state_reason` text NOT NULL,
	`occurred_at` integer NOT NULL,
	`status` text DEFAULT 'PENDING' NOT NULL,
	`enqueued_at` integer,
	`delivered_at` integer,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `events_application_sequence_idx` ON `events` (`application_id`,`sequence`);--> statement-breakpoint
CREATE INDEX `events_application_id_idx` ON `events` (`application_id`,`id`);--> statement-breakpoint
CREATE INDEX `events_status_idx` ON `events` (`status`,`enqueued_at`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`partner_id` text NOT NULL,
	`key` text NOT NULL,
	`target` text NOT NULL,
	`request_hash` text NOT NULL,
	`response_status` integer,
	`response_body` text,
	`response_headers` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`partner_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_created_idx` ON `idempotency_keys` (`created_at`);--> statement-breakpoint
CREATE TABLE `notification_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`event_id` text NOT NULL,
	`attempted_at` integer NOT NULL,
	`http_status` integer,
	`error` text,
	`duration_ms` integer NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `notification_attempts_event_idx` ON `notification_attempts` (`event_id`,`id`);--> statement-breakpoint
CREATE TABLE `order_lines` (
	`id` text PRIMARY KEY NOT NULL,
	`application_id` text NOT NULL,
	`position` real NOT NULL,
	`code` text NOT NULL,
	`ean` text,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`variant` text,
	`producer` text,
	`categories` text,
	`product_url` text,
	`quantity` integer NOT NULL,
	`unit_price_amount` integer,
	`total_price_amount` integer NOT NULL,
	`unit_vat_rate` real,
	`unit_vat_amount` integer,
	`total_vat_rate` real NOT NULL,
	`total_vat_amount` integer NOT NULL,
	`state` text NOT NULL,
	`sent_date` text,
	`delivery_date` text,
	`delivery_tracking_number` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `order_lines_application_idx` ON `order_lines` (`application_id`,`position`);--> statement-breakpoint
CREATE TABLE `partners` (
	`id` text PRIMARY KEY NOT NULL,
	`username` text NOT NULL,
	`display_name` text NOT NULL,
	`password_hash` text NOT NULL,
	`api_key_ciphertext` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `partners_username_unique` ON `partners` (`username`);--> statement-breakpoint
CREATE TABLE `refunds` (
	`id` text PRIMARY KEY NOT NULL,
	`application_id` text NOT NULL,
	`origin` text NOT NULL,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`reason` text,
	`variable_symbol` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `refunds_application_idx` ON `refunds` (`application_id`,`id`);--> statement-breakpoint
CREATE TABLE `write_guard` (
	`id` integer PRIMARY KEY NOT NULL,
	`ok` integer NOT NULL,
	CONSTRAINT "write_guard_ok" CHECK("write_guard"."ok" = 1)
);
