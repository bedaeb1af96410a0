ALTER TABLE `applications` ADD `expires_at` integer;--> statement-breakpoint
ALTER TABLE `applications` ADD `reminder_at` integer;--> statement-breakpoint
ALTER TABLE `applications` ADD `review_at` integer;--> statement-breakpoint
ALTER TABLE `applications` ADD `review_outcome` text;--> statement-breakpoint
ALTER TABLE `applications` ADD `next_due_at` integer;--> statement-breakpoint
CREATE INDEX `applications_due_idx` ON `applications` (`next_due_at`,`id`) WHERE "applications"."next_due_at" IS NOT NULL;--> statement-breakpoint
ALTER TABLE `events` ADD `expires_at` integer;--> statement-breakpoint
-- Applications from before deadlines get the default ones (CUSTOMER_DECISION_TTL_SECONDS 72 h,
-- AUTHORIZATION_TTL_DAYS 28 from the decision, AUTHORIZATION_REMINDER_DAYS 7): one already past lapses at
-- the next sweep, with its notification, as it would have.
UPDATE `applications` SET `expires_at` = `created_at` + 259200000
  WHERE `state` = 'PROCESSING' AND `state_reason` = 'PROCESSING_REDIRECT_NEEDED';--> statement-breakpoint
UPDATE `applications` SET `expires_at` = COALESCE(`decided_at`, `updated_at`) + 2419200000,
    `reminder_at` = COALESCE(`decided_at`, `updated_at`) + 2419200000 - 604800000
  WHERE `state` = 'READY' AND EXISTS (SELECT 1 FROM `order_lines` l WHERE l.`application_id` = `applications`.`id`
    AND l.`state` = 'PROCESSING' AND l.`type` <> 'DISCOUNT');--> statement-breakpoint
UPDATE `applications` SET `next_due_at` = MIN(`expires_at`, COALESCE(`reminder_at`, `expires_at`))
  WHERE `expires_at` IS NOT NULL;
