-- The variable-symbol lookup keyed by the partner first (src/db/schema.ts): a console search reads the
-- partner's own rows only, not every partner's rows with that symbol. Written by hand: the table is
-- rebuilt from the applications, as 0007 filled it, and nothing points at it.
DROP TRIGGER `application_variable_symbols_insert`;--> statement-breakpoint
DROP TABLE `application_variable_symbols`;--> statement-breakpoint
CREATE TABLE `application_variable_symbols` (
	`partner_id` text NOT NULL,
	`variable_symbol` text NOT NULL,
	`application_id` text NOT NULL,
	PRIMARY KEY(`partner_id`, `variable_symbol`, `application_id`),
	FOREIGN KEY (`partner_id`) REFERENCES `partners`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
-- Kept by the database from the stored list, so no write path can forget it. Symbols are digits only,
-- so the list becomes a JSON array by quoting around its commas; a symbol listed twice is one row.
CREATE TRIGGER `application_variable_symbols_insert` AFTER INSERT ON `applications`
  WHEN NEW.`variable_symbols` <> ''
BEGIN
  INSERT INTO `application_variable_symbols` (`partner_id`, `variable_symbol`, `application_id`)
    SELECT DISTINCT NEW.`partner_id`, `value`, NEW.`id`
    FROM json_each('["' || replace(NEW.`variable_symbols`, ',', '","') || '"]');
END;--> statement-breakpoint
INSERT INTO `application_variable_symbols` (`partner_id`, `variable_symbol`, `application_id`)
  SELECT DISTINCT a.`partner_id`, j.`value`, a.`id` FROM `applications` a,
    json_each('["' || replace(a.`variable_symbols`, ',', '","') || '"]') j
  WHERE a.`variable_symbols` <> '';--> statement-breakpoint
-- The rows count toward their partner's usage as the service counts them from now on (rowBytes: the
-- row's values as JSON), which 0007's rows were not.
UPDATE `partners` SET `stored_bytes` = `stored_bytes` + COALESCE((
  SELECT SUM(length(json_object('partnerId', s.`partner_id`, 'variableSymbol', s.`variable_symbol`,
    'applicationId', s.`application_id`)))
  FROM `application_variable_symbols` s WHERE s.`partner_id` = `partners`.`id`), 0);
