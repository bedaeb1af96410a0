ALTER TABLE `applications` ADD `idle_since` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `applications` ADD `archive_key` text;--> statement-breakpoint
-- Written by hand (drizzle-kit writes no data): an application's archive age counts from its last change.
UPDATE `applications` SET `idle_since` = `updated_at`;--> statement-breakpoint
CREATE INDEX `applications_archivable_idx` ON `applications` (`idle_since`,`id`) WHERE "applications"."archive_key" IS NULL AND "applications"."next_due_at" IS NULL AND ("applications"."state" IN ('CANCELLED', 'REJECTED') OR "applications"."state_reason" IN ('READY_DELIVERED', 'READY_PAID'));