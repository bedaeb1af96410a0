CREATE TABLE `partner_move_requests` (
	`partner_id` text PRIMARY KEY NOT NULL,
	`to_shard` integer NOT NULL,
	`requested_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer,
	`report` text
);
--> statement-breakpoint
CREATE TABLE `partner_moves` (
	`partner_id` text PRIMARY KEY NOT NULL,
	`to_shard` integer,
	`started_at` integer NOT NULL
);--> statement-breakpoint
-- Written by hand (drizzle-kit knows no triggers): see partnerMoves in src/db/schema.ts. Every write a
-- partner's request, the cron or the queue makes touches one of these tables with the partner's id (a
-- line, a refund, a document or an attempt is written in a batch led by its application's or its
-- event's update), so one check per statement freezes the partner: the message is one src/transient.ts
-- answers 503 with Retry-After. Deletes are refused while the move copies (to_shard NULL) only: once the
-- partner has gone, the move deletes what it left here.
CREATE TRIGGER `applications_partner_moving_insert` BEFORE INSERT ON `applications`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards');
END;--> statement-breakpoint
CREATE TRIGGER `applications_partner_moving_update` BEFORE UPDATE ON `applications`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards');
END;--> statement-breakpoint
CREATE TRIGGER `applications_partner_moving_delete` BEFORE DELETE ON `applications`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = OLD.`partner_id` AND `to_shard` IS NULL)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards');
END;--> statement-breakpoint
CREATE TRIGGER `events_partner_moving_insert` BEFORE INSERT ON `events`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards');
END;--> statement-breakpoint
CREATE TRIGGER `events_partner_moving_update` BEFORE UPDATE ON `events`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards');
END;--> statement-breakpoint
CREATE TRIGGER `shipments_partner_moving_insert` BEFORE INSERT ON `shipments`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards');
END;--> statement-breakpoint
CREATE TRIGGER `shipments_partner_moving_update` BEFORE UPDATE ON `shipments`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards');
END;--> statement-breakpoint
CREATE TRIGGER `settlement_entries_partner_moving_insert` BEFORE INSERT ON `settlement_entries`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards');
END;--> statement-breakpoint
CREATE TRIGGER `settlement_entries_partner_moving_update` BEFORE UPDATE ON `settlement_entries`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards');
END;--> statement-breakpoint
CREATE TRIGGER `payouts_partner_moving_insert` BEFORE INSERT ON `payouts`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards');
END;--> statement-breakpoint
CREATE TRIGGER `payouts_partner_moving_update` BEFORE UPDATE ON `payouts`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards');
END;--> statement-breakpoint
CREATE TRIGGER `idempotency_keys_partner_moving_insert` BEFORE INSERT ON `idempotency_keys`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards');
END;--> statement-breakpoint
CREATE TRIGGER `idempotency_keys_partner_moving_update` BEFORE UPDATE ON `idempotency_keys`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards');
END;--> statement-breakpoint
CREATE TRIGGER `idempotency_keys_partner_moving_delete` BEFORE DELETE ON `idempotency_keys`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = OLD.`partner_id` AND `to_shard` IS NULL)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards');
END;--> statement-breakpoint
CREATE TRIGGER `audit_events_partner_moving_insert` BEFORE INSERT ON `audit_events`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards');
END;--> statement-breakpoint
CREATE TRIGGER `console_people_partner_moving_insert` BEFORE INSERT ON `console_people`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards');
END;--> statement-breakpoint
CREATE TRIGGER `console_people_partner_moving_update` BEFORE UPDATE ON `console_people`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards');
END;--> statement-breakpoint
CREATE TRIGGER `console_people_partner_moving_delete` BEFORE DELETE ON `console_people`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = OLD.`partner_id` AND `to_shard` IS NULL)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards');
END;--> statement-breakpoint
-- The partner row: refused while the move copies (a rotation of its secrets, its usage), except the
-- move's own switch of its shard, which is how a partner of shard 0 (whose row is the directory's) moves.
CREATE TRIGGER `partners_partner_moving_update` BEFORE UPDATE ON `partners`
  WHEN OLD.`shard` = NEW.`shard` AND EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`id` AND `to_shard` IS NULL)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards');
END;
