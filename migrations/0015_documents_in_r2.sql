CREATE TABLE `document_uploads` (
	`file_key` text PRIMARY KEY NOT NULL,
	`started_at` integer NOT NULL,
	`abandoned` integer DEFAULT false NOT NULL
);
--> statement-breakpoint
ALTER TABLE `documents` ADD `file_key` text;--> statement-breakpoint
CREATE INDEX `documents_in_d1_idx` ON `documents` (`id`,`file_key`) WHERE "documents"."file_key" IS NULL;