CREATE TABLE `application_variable_symbols` (
	`variable_symbol` text NOT NULL,
	`application_id` text NOT NULL,
	PRIMARY KEY(`variable_symbol`, `application_id`),
	FOREIGN KEY (`application_id`) REFERENCES `applications`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
-- Kept by the database from the stored list, so no write path can forget it. Symbols are digits only,
-- so the list becomes a JSON array by quoting around its commas; a symbol listed twice is one row.
CREATE TRIGGER `application_variable_symbols_insert` AFTER INSERT ON `applications`
  WHEN NEW.`variable_symbols` <> ''
BEGIN
  INSERT INTO `application_variable_symbols` (`variable_symbol`, `application_id`)
    SELECT DISTINCT `value`, NEW.`id` FROM json_each('["' || replace(NEW.`variable_symbols`, ',', '","') || '"]');
END;--> statement-breakpoint
INSERT INTO `application_variable_symbols` (`variable_symbol`, `application_id`)
  SELECT DISTINCT j.`value`, a.`id` FROM `applications` a,
    json_each('["' || replace(a.`variable_symbols`, ',', '","') || '"]') j
  WHERE a.`variable_symbols` <> '';
