DROP INDEX `applications_partner_id_idx`;--> statement-breakpoint
DROP INDEX `applications_partner_created_idx`;--> statement-breakpoint
DROP INDEX `applications_partner_updated_idx`;--> statement-breakpoint
DROP INDEX `applications_partner_state_idx`;--> statement-breakpoint
DROP INDEX `applications_partner_reason_idx`;--> statement-breakpoint
DROP INDEX `applications_partner_type_idx`;--> statement-breakpoint
DROP INDEX `applications_partner_total_idx`;--> statement-breakpoint
DROP INDEX `applications_partner_email_idx`;--> statement-breakpoint
ALTER TABLE `applications` ADD `idle_since` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `applications` ADD `archive_key` text;--> statement-breakpoint
-- Written by hand (drizzle-kit writes no data): an application's archive age counts from its last change.
UPDATE `applications` SET `idle_since` = `updated_at`;--> statement-breakpoint
CREATE INDEX `applications_archivable_idx` ON `applications` (`idle_since`,`id`) WHERE "applications"."archive_key" IS NULL AND "applications"."next_due_at" IS NULL AND ("applications"."state" IN ('CANCELLED', 'REJECTED') OR "applications"."state_reason" IN ('READY_DELIVERED', 'READY_PAID'));--> statement-breakpoint
CREATE INDEX `applications_partner_id_idx` ON `applications` (`partner_id`,`id`) WHERE "applications"."archive_key" IS NULL;--> statement-breakpoint
CREATE INDEX `applications_partner_created_idx` ON `applications` (`partner_id`,`created_at`,`id`) WHERE "applications"."archive_key" IS NULL;--> statement-breakpoint
CREATE INDEX `applications_partner_updated_idx` ON `applications` (`partner_id`,`updated_at`,`id`) WHERE "applications"."archive_key" IS NULL;--> statement-breakpoint
CREATE INDEX `applications_partner_state_idx` ON `applications` (`partner_id`,`state`,`id`) WHERE "applications"."archive_key" IS NULL;--> statement-breakpoint
CREATE INDEX `applications_partner_reason_idx` ON `applications` (`partner_id`,`state_reason`,`id`) WHERE "applications"."archive_key" IS NULL;--> statement-breakpoint
CREATE INDEX `applications_partner_type_idx` ON `applications` (`partner_id`,`type`,`id`) WHERE "applications"."archive_key" IS NULL;--> statement-breakpoint
CREATE INDEX `applications_partner_total_idx` ON `applications` (`partner_id`,`total_amount`,`id`) WHERE "applications"."archive_key" IS NULL;--> statement-breakpoint
CREATE INDEX `applications_partner_email_idx` ON `applications` (`partner_id`,`customer_email`,`id`) WHERE "applications"."archive_key" IS NULL;