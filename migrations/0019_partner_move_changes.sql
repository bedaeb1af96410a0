CREATE TABLE `partner_move_changes` (
	`partner_id` text NOT NULL,
	`table_name` text NOT NULL,
	`row_key` text NOT NULL,
	PRIMARY KEY(`partner_id`, `table_name`, `row_key`)
);
--> statement-breakpoint
ALTER TABLE `partner_moves` ADD `state` text DEFAULT 'frozen' NOT NULL;--> statement-breakpoint
CREATE INDEX `application_variable_symbols_application_idx` ON `application_variable_symbols` (`application_id`);--> statement-breakpoint
UPDATE `partner_moves` SET `state` = 'moved' WHERE `to_shard` IS NOT NULL;--> statement-breakpoint
-- Written by hand (drizzle-kit knows no triggers): see partnerMoves and partnerMoveChanges in
-- src/db/schema.ts. 0018's triggers refused a moving partner's writes; these, one per table with a
-- `partner_id` and per kind of write, look at its mark's state instead. Their WHEN is 0018's: one
-- primary-key lookup in `partner_moves` per row written, all a partner without a mark pays; the body runs
-- for a partner with one only. `copying` names the row in `partner_move_changes` (once), `frozen` refuses
-- every write, `moved` inserts and updates (deletes are the move's own, after it), `landing` nothing.
-- The partner's row is refused while frozen only, as in 0018: the directory keeps it after a move off
-- shard 0 (its identity, which the cron's payouts task updates with every partner's of the shard).
-- AFTER, not BEFORE: a row's key is what was written, and a RAISE rolls the statement back all the same.
-- A row without a `partner_id` (a line, a document, a refund, a variable symbol, an attempt, a payout's
-- entry) is written only with its application, event or payout, whose row names it (src/db/partner-move.ts).
DROP TRIGGER `applications_partner_moving_insert`;--> statement-breakpoint
DROP TRIGGER `applications_partner_moving_update`;--> statement-breakpoint
DROP TRIGGER `applications_partner_moving_delete`;--> statement-breakpoint
DROP TRIGGER `events_partner_moving_insert`;--> statement-breakpoint
DROP TRIGGER `events_partner_moving_update`;--> statement-breakpoint
DROP TRIGGER `shipments_partner_moving_insert`;--> statement-breakpoint
DROP TRIGGER `shipments_partner_moving_update`;--> statement-breakpoint
DROP TRIGGER `settlement_entries_partner_moving_insert`;--> statement-breakpoint
DROP TRIGGER `settlement_entries_partner_moving_update`;--> statement-breakpoint
DROP TRIGGER `payouts_partner_moving_insert`;--> statement-breakpoint
DROP TRIGGER `payouts_partner_moving_update`;--> statement-breakpoint
DROP TRIGGER `idempotency_keys_partner_moving_insert`;--> statement-breakpoint
DROP TRIGGER `idempotency_keys_partner_moving_update`;--> statement-breakpoint
DROP TRIGGER `idempotency_keys_partner_moving_delete`;--> statement-breakpoint
DROP TRIGGER `audit_events_partner_moving_insert`;--> statement-breakpoint
DROP TRIGGER `console_people_partner_moving_insert`;--> statement-breakpoint
DROP TRIGGER `console_people_partner_moving_update`;--> statement-breakpoint
DROP TRIGGER `console_people_partner_moving_delete`;--> statement-breakpoint
DROP TRIGGER `partners_partner_moving_update`;--> statement-breakpoint
CREATE TRIGGER `partners_partner_move_insert` AFTER INSERT ON `partners`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards') FROM `partner_moves`
    WHERE `partner_id` = NEW.`id` AND `state` = 'frozen';
  INSERT INTO `partner_move_changes` (`partner_id`, `table_name`, `row_key`)
    SELECT NEW.`id`, 'partners', json_array(NEW.`id`) FROM `partner_moves`
    WHERE `partner_id` = NEW.`id` AND `state` = 'copying' AND NOT EXISTS (SELECT 1 FROM `partner_move_changes`
      WHERE `partner_id` = NEW.`id` AND `table_name` = 'partners' AND `row_key` = json_array(NEW.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `partners_partner_move_update` AFTER UPDATE ON `partners`
  WHEN OLD.`shard` = NEW.`shard` AND EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards') FROM `partner_moves`
    WHERE `partner_id` = NEW.`id` AND `state` = 'frozen';
  INSERT INTO `partner_move_changes` (`partner_id`, `table_name`, `row_key`)
    SELECT NEW.`id`, 'partners', json_array(NEW.`id`) FROM `partner_moves`
    WHERE `partner_id` = NEW.`id` AND `state` = 'copying' AND NOT EXISTS (SELECT 1 FROM `partner_move_changes`
      WHERE `partner_id` = NEW.`id` AND `table_name` = 'partners' AND `row_key` = json_array(NEW.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `partners_partner_move_delete` AFTER DELETE ON `partners`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = OLD.`id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards') FROM `partner_moves`
    WHERE `partner_id` = OLD.`id` AND `state` = 'frozen';
  INSERT INTO `partner_move_changes` (`partner_id`, `table_name`, `row_key`)
    SELECT OLD.`id`, 'partners', json_array(OLD.`id`) FROM `partner_moves`
    WHERE `partner_id` = OLD.`id` AND `state` = 'copying' AND NOT EXISTS (SELECT 1 FROM `partner_move_changes`
      WHERE `partner_id` = OLD.`id` AND `table_name` = 'partners' AND `row_key` = json_array(OLD.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `console_people_partner_move_insert` AFTER INSERT ON `console_people`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards') FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` IN ('frozen', 'moved');
  INSERT INTO `partner_move_changes` (`partner_id`, `table_name`, `row_key`)
    SELECT NEW.`partner_id`, 'console_people', json_array(NEW.`id`) FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` = 'copying' AND NOT EXISTS (SELECT 1 FROM `partner_move_changes`
      WHERE `partner_id` = NEW.`partner_id` AND `table_name` = 'console_people' AND `row_key` = json_array(NEW.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `console_people_partner_move_update` AFTER UPDATE ON `console_people`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards') FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` IN ('frozen', 'moved');
  INSERT INTO `partner_move_changes` (`partner_id`, `table_name`, `row_key`)
    SELECT NEW.`partner_id`, 'console_people', json_array(NEW.`id`) FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` = 'copying' AND NOT EXISTS (SELECT 1 FROM `partner_move_changes`
      WHERE `partner_id` = NEW.`partner_id` AND `table_name` = 'console_people' AND `row_key` = json_array(NEW.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `console_people_partner_move_delete` AFTER DELETE ON `console_people`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = OLD.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards') FROM `partner_moves`
    WHERE `partner_id` = OLD.`partner_id` AND `state` = 'frozen';
  INSERT INTO `partner_move_changes` (`partner_id`, `table_name`, `row_key`)
    SELECT OLD.`partner_id`, 'console_people', json_array(OLD.`id`) FROM `partner_moves`
    WHERE `partner_id` = OLD.`partner_id` AND `state` = 'copying' AND NOT EXISTS (SELECT 1 FROM `partner_move_changes`
      WHERE `partner_id` = OLD.`partner_id` AND `table_name` = 'console_people' AND `row_key` = json_array(OLD.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `audit_events_partner_move_insert` AFTER INSERT ON `audit_events`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards') FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` IN ('frozen', 'moved');
  INSERT INTO `partner_move_changes` (`partner_id`, `table_name`, `row_key`)
    SELECT NEW.`partner_id`, 'audit_events', json_array(NEW.`id`) FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` = 'copying' AND NOT EXISTS (SELECT 1 FROM `partner_move_changes`
      WHERE `partner_id` = NEW.`partner_id` AND `table_name` = 'audit_events' AND `row_key` = json_array(NEW.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `audit_events_partner_move_update` AFTER UPDATE ON `audit_events`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards') FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` IN ('frozen', 'moved');
  INSERT INTO `partner_move_changes` (`partner_id`, `table_name`, `row_key`)
    SELECT NEW.`partner_id`, 'audit_events', json_array(NEW.`id`) FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` = 'copying' AND NOT EXISTS (SELECT 1 FROM `partner_move_changes`
      WHERE `partner_id` = NEW.`partner_id` AND `table_name` = 'audit_events' AND `row_key` = json_array(NEW.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `audit_events_partner_move_delete` AFTER DELETE ON `audit_events`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = OLD.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards') FROM `partner_moves`
    WHERE `partner_id` = OLD.`partner_id` AND `state` = 'frozen';
  INSERT INTO `partner_move_changes` (`partner_id`, `table_name`, `row_key`)
    SELECT OLD.`partner_id`, 'audit_events', json_array(OLD.`id`) FROM `partner_moves`
    WHERE `partner_id` = OLD.`partner_id` AND `state` = 'copying' AND NOT EXISTS (SELECT 1 FROM `partner_move_changes`
      WHERE `partner_id` = OLD.`partner_id` AND `table_name` = 'audit_events' AND `row_key` = json_array(OLD.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `applications_partner_move_insert` AFTER INSERT ON `applications`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards') FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` IN ('frozen', 'moved');
  INSERT INTO `partner_move_changes` (`partner_id`, `table_name`, `row_key`)
    SELECT NEW.`partner_id`, 'applications', json_array(NEW.`id`) FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` = 'copying' AND NOT EXISTS (SELECT 1 FROM `partner_move_changes`
      WHERE `partner_id` = NEW.`partner_id` AND `table_name` = 'applications' AND `row_key` = json_array(NEW.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `applications_partner_move_update` AFTER UPDATE ON `applications`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards') FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` IN ('frozen', 'moved');
  INSERT INTO `partner_move_changes` (`partner_id`, `table_name`, `row_key`)
    SELECT NEW.`partner_id`, 'applications', json_array(NEW.`id`) FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` = 'copying' AND NOT EXISTS (SELECT 1 FROM `partner_move_changes`
      WHERE `partner_id` = NEW.`partner_id` AND `table_name` = 'applications' AND `row_key` = json_array(NEW.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `applications_partner_move_delete` AFTER DELETE ON `applications`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = OLD.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards') FROM `partner_moves`
    WHERE `partner_id` = OLD.`partner_id` AND `state` = 'frozen';
  INSERT INTO `partner_move_changes` (`partner_id`, `table_name`, `row_key`)
    SELECT OLD.`partner_id`, 'applications', json_array(OLD.`id`) FROM `partner_moves`
    WHERE `partner_id` = OLD.`partner_id` AND `state` = 'copying' AND NOT EXISTS (SELECT 1 FROM `partner_move_changes`
      WHERE `partner_id` = OLD.`partner_id` AND `table_name` = 'applications' AND `row_key` = json_array(OLD.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `shipments_partner_move_insert` AFTER INSERT ON `shipments`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards') FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` IN ('frozen', 'moved');
  INSERT INTO `partner_move_changes` (`partner_id`, `table_name`, `row_key`)
    SELECT NEW.`partner_id`, 'shipments', json_array(NEW.`id`) FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` = 'copying' AND NOT EXISTS (SELECT 1 FROM `partner_move_changes`
      WHERE `partner_id` = NEW.`partner_id` AND `table_name` = 'shipments' AND `row_key` = json_array(NEW.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `shipments_partner_move_update` AFTER UPDATE ON `shipments`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards') FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` IN ('frozen', 'moved');
  INSERT INTO `partner_move_changes` (`partner_id`, `table_name`, `row_key`)
    SELECT NEW.`partner_id`, 'shipments', json_array(NEW.`id`) FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` = 'copying' AND NOT EXISTS (SELECT 1 FROM `partner_move_changes`
      WHERE `partner_id` = NEW.`partner_id` AND `table_name` = 'shipments' AND `row_key` = json_array(NEW.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `shipments_partner_move_delete` AFTER DELETE ON `shipments`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = OLD.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards') FROM `partner_moves`
    WHERE `partner_id` = OLD.`partner_id` AND `state` = 'frozen';
  INSERT INTO `partner_move_changes` (`partner_id`, `table_name`, `row_key`)
    SELECT OLD.`partner_id`, 'shipments', json_array(OLD.`id`) FROM `partner_moves`
    WHERE `partner_id` = OLD.`partner_id` AND `state` = 'copying' AND NOT EXISTS (SELECT 1 FROM `partner_move_changes`
      WHERE `partner_id` = OLD.`partner_id` AND `table_name` = 'shipments' AND `row_key` = json_array(OLD.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `settlement_entries_partner_move_insert` AFTER INSERT ON `settlement_entries`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards') FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` IN ('frozen', 'moved');
  INSERT INTO `partner_move_changes` (`partner_id`, `table_name`, `row_key`)
    SELECT NEW.`partner_id`, 'settlement_entries', json_array(NEW.`id`) FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` = 'copying' AND NOT EXISTS (SELECT 1 FROM `partner_move_changes`
      WHERE `partner_id` = NEW.`partner_id` AND `table_name` = 'settlement_entries' AND `row_key` = json_array(NEW.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `settlement_entries_partner_move_update` AFTER UPDATE ON `settlement_entries`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards') FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` IN ('frozen', 'moved');
  INSERT INTO `partner_move_changes` (`partner_id`, `table_name`, `row_key`)
    SELECT NEW.`partner_id`, 'settlement_entries', json_array(NEW.`id`) FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` = 'copying' AND NOT EXISTS (SELECT 1 FROM `partner_move_changes`
      WHERE `partner_id` = NEW.`partner_id` AND `table_name` = 'settlement_entries' AND `row_key` = json_array(NEW.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `settlement_entries_partner_move_delete` AFTER DELETE ON `settlement_entries`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = OLD.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards') FROM `partner_moves`
    WHERE `partner_id` = OLD.`partner_id` AND `state` = 'frozen';
  INSERT INTO `partner_move_changes` (`partner_id`, `table_name`, `row_key`)
    SELECT OLD.`partner_id`, 'settlement_entries', json_array(OLD.`id`) FROM `partner_moves`
    WHERE `partner_id` = OLD.`partner_id` AND `state` = 'copying' AND NOT EXISTS (SELECT 1 FROM `partner_move_changes`
      WHERE `partner_id` = OLD.`partner_id` AND `table_name` = 'settlement_entries' AND `row_key` = json_array(OLD.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `payouts_partner_move_insert` AFTER INSERT ON `payouts`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards') FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` IN ('frozen', 'moved');
  INSERT INTO `partner_move_changes` (`partner_id`, `table_name`, `row_key`)
    SELECT NEW.`partner_id`, 'payouts', json_array(NEW.`id`) FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` = 'copying' AND NOT EXISTS (SELECT 1 FROM `partner_move_changes`
      WHERE `partner_id` = NEW.`partner_id` AND `table_name` = 'payouts' AND `row_key` = json_array(NEW.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `payouts_partner_move_update` AFTER UPDATE ON `payouts`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards') FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` IN ('frozen', 'moved');
  INSERT INTO `partner_move_changes` (`partner_id`, `table_name`, `row_key`)
    SELECT NEW.`partner_id`, 'payouts', json_array(NEW.`id`) FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` = 'copying' AND NOT EXISTS (SELECT 1 FROM `partner_move_changes`
      WHERE `partner_id` = NEW.`partner_id` AND `table_name` = 'payouts' AND `row_key` = json_array(NEW.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `payouts_partner_move_delete` AFTER DELETE ON `payouts`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = OLD.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards') FROM `partner_moves`
    WHERE `partner_id` = OLD.`partner_id` AND `state` = 'frozen';
  INSERT INTO `partner_move_changes` (`partner_id`, `table_name`, `row_key`)
    SELECT OLD.`partner_id`, 'payouts', json_array(OLD.`id`) FROM `partner_moves`
    WHERE `partner_id` = OLD.`partner_id` AND `state` = 'copying' AND NOT EXISTS (SELECT 1 FROM `partner_move_changes`
      WHERE `partner_id` = OLD.`partner_id` AND `table_name` = 'payouts' AND `row_key` = json_array(OLD.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `events_partner_move_insert` AFTER INSERT ON `events`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards') FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` IN ('frozen', 'moved');
  INSERT INTO `partner_move_changes` (`partner_id`, `table_name`, `row_key`)
    SELECT NEW.`partner_id`, 'events', json_array(NEW.`id`) FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` = 'copying' AND NOT EXISTS (SELECT 1 FROM `partner_move_changes`
      WHERE `partner_id` = NEW.`partner_id` AND `table_name` = 'events' AND `row_key` = json_array(NEW.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `events_partner_move_update` AFTER UPDATE ON `events`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards') FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` IN ('frozen', 'moved');
  INSERT INTO `partner_move_changes` (`partner_id`, `table_name`, `row_key`)
    SELECT NEW.`partner_id`, 'events', json_array(NEW.`id`) FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` = 'copying' AND NOT EXISTS (SELECT 1 FROM `partner_move_changes`
      WHERE `partner_id` = NEW.`partner_id` AND `table_name` = 'events' AND `row_key` = json_array(NEW.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `events_partner_move_delete` AFTER DELETE ON `events`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = OLD.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards') FROM `partner_moves`
    WHERE `partner_id` = OLD.`partner_id` AND `state` = 'frozen';
  INSERT INTO `partner_move_changes` (`partner_id`, `table_name`, `row_key`)
    SELECT OLD.`partner_id`, 'events', json_array(OLD.`id`) FROM `partner_moves`
    WHERE `partner_id` = OLD.`partner_id` AND `state` = 'copying' AND NOT EXISTS (SELECT 1 FROM `partner_move_changes`
      WHERE `partner_id` = OLD.`partner_id` AND `table_name` = 'events' AND `row_key` = json_array(OLD.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `idempotency_keys_partner_move_insert` AFTER INSERT ON `idempotency_keys`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards') FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` IN ('frozen', 'moved');
  INSERT INTO `partner_move_changes` (`partner_id`, `table_name`, `row_key`)
    SELECT NEW.`partner_id`, 'idempotency_keys', json_array(NEW.`partner_id`, NEW.`key`) FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` = 'copying' AND NOT EXISTS (SELECT 1 FROM `partner_move_changes`
      WHERE `partner_id` = NEW.`partner_id` AND `table_name` = 'idempotency_keys' AND `row_key` = json_array(NEW.`partner_id`, NEW.`key`));
END;--> statement-breakpoint
CREATE TRIGGER `idempotency_keys_partner_move_update` AFTER UPDATE ON `idempotency_keys`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = NEW.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards') FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` IN ('frozen', 'moved');
  INSERT INTO `partner_move_changes` (`partner_id`, `table_name`, `row_key`)
    SELECT NEW.`partner_id`, 'idempotency_keys', json_array(NEW.`partner_id`, NEW.`key`) FROM `partner_moves`
    WHERE `partner_id` = NEW.`partner_id` AND `state` = 'copying' AND NOT EXISTS (SELECT 1 FROM `partner_move_changes`
      WHERE `partner_id` = NEW.`partner_id` AND `table_name` = 'idempotency_keys' AND `row_key` = json_array(NEW.`partner_id`, NEW.`key`));
END;--> statement-breakpoint
CREATE TRIGGER `idempotency_keys_partner_move_delete` AFTER DELETE ON `idempotency_keys`
  WHEN EXISTS (SELECT 1 FROM `partner_moves` WHERE `partner_id` = OLD.`partner_id`)
BEGIN
  SELECT RAISE(ABORT, 'partner is moving between shards') FROM `partner_moves`
    WHERE `partner_id` = OLD.`partner_id` AND `state` = 'frozen';
  INSERT INTO `partner_move_changes` (`partner_id`, `table_name`, `row_key`)
    SELECT OLD.`partner_id`, 'idempotency_keys', json_array(OLD.`partner_id`, OLD.`key`) FROM `partner_moves`
    WHERE `partner_id` = OLD.`partner_id` AND `state` = 'copying' AND NOT EXISTS (SELECT 1 FROM `partner_move_changes`
      WHERE `partner_id` = OLD.`partner_id` AND `table_name` = 'idempotency_keys' AND `row_key` = json_array(OLD.`partner_id`, OLD.`key`));
END;
