ALTER TABLE `applications` ADD `content_bytes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Applications stored before the size was kept: an estimate from the stored texts (SQLite's length()
-- counts characters, and a line's keys and numbers take about 400 bytes as JSON). Every later write
-- keeps the measure of src/domain/application-size.ts, from this base.
UPDATE `applications` SET `content_bytes` = length(`customer`) + length(`order_details`) + length(`merchant_urls`) + COALESCE((SELECT SUM(400 + length(`code`) + length(`name`) + length(`type`) + COALESCE(length(`ean`), 0) + COALESCE(length(`variant`), 0) + COALESCE(length(`producer`), 0) + COALESCE(length(`categories`), 0) + COALESCE(length(`product_url`), 0) + COALESCE(length(`delivery_tracking_number`), 0)) FROM `order_lines` WHERE `order_lines`.`application_id` = `applications`.`id`), 0);
