-- Each partner's share of the storage (src/db/storage.ts). Written by hand: drizzle-kit would rebuild
-- the partners table, which D1 cannot do under the foreign keys that point at it.
ALTER TABLE `idempotency_keys` ADD `stored_bytes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `partners` ADD `stored_bytes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `partners` ADD `storage_quota_bytes` integer;--> statement-breakpoint
ALTER TABLE `partners` ADD `within_quota` integer DEFAULT 1 NOT NULL CONSTRAINT `partner_storage_quota` CHECK (`within_quota` = 1);--> statement-breakpoint
-- What partners hold already, estimated from their largest columns (rows written from now on are
-- counted exactly as the service counts them).
UPDATE `partners` SET `stored_bytes` =
  COALESCE((SELECT SUM(length(CAST(`customer` AS BLOB)) + length(CAST(`order_details` AS BLOB))
    + length(CAST(`merchant_urls` AS BLOB)) + 700) FROM `applications` WHERE `partner_id` = `partners`.`id`), 0)
  + COALESCE((SELECT SUM(length(CAST(l.`code` AS BLOB)) + length(CAST(l.`name` AS BLOB))
    + COALESCE(length(CAST(l.`categories` AS BLOB)), 0) + 450) FROM `order_lines` l
    JOIN `applications` a ON a.`id` = l.`application_id` WHERE a.`partner_id` = `partners`.`id`), 0)
  + COALESCE((SELECT SUM(length(CAST(d.`content` AS BLOB)) + 300) FROM `documents` d
    JOIN `applications` a ON a.`id` = d.`application_id` WHERE a.`partner_id` = `partners`.`id`), 0)
  + COALESCE((SELECT SUM(200) FROM `refunds` r
    JOIN `applications` a ON a.`id` = r.`application_id` WHERE a.`partner_id` = `partners`.`id`), 0);
