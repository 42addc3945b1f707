CREATE TABLE `kb_collections` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`org_id` text NOT NULL,
	`project_id` text,
	`embedding_model` text NOT NULL,
	`dims` integer,
	`passage_words` integer NOT NULL,
	`overlap_words` integer NOT NULL,
	`last_error` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `kb_collections_org_project_name` ON `kb_collections` (`org_id`,`project_id`,`name`);--> statement-breakpoint
CREATE TABLE `kb_documents` (
	`id` text PRIMARY KEY NOT NULL,
	`collection_id` text NOT NULL,
	`name` text NOT NULL,
	`format` text NOT NULL,
	`bytes` integer NOT NULL,
	`status` text NOT NULL,
	`passages` integer NOT NULL,
	`embedded` integer NOT NULL,
	`error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`collection_id`) REFERENCES `kb_collections`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `kb_documents_collection_name` ON `kb_documents` (`collection_id`,`name`);--> statement-breakpoint
CREATE TABLE `kb_passages` (
	`id` text PRIMARY KEY NOT NULL,
	`collection_id` text NOT NULL,
	`document_id` text NOT NULL,
	`seq` integer NOT NULL,
	`row_key` integer NOT NULL,
	`heading` text,
	`text` text NOT NULL,
	`embedding` text,
	FOREIGN KEY (`document_id`) REFERENCES `kb_documents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `kb_passages_collection` ON `kb_passages` (`collection_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `kb_passages_row_key` ON `kb_passages` (`row_key`);--> statement-breakpoint
CREATE INDEX `kb_passages_document` ON `kb_passages` (`document_id`,`seq`);--> statement-breakpoint
-- Written by hand after drizzle-kit's part (Drizzle does not model FTS5): the passages' keyword
-- index, kept in step by triggers so no write path can forget it, `store copy` included.
CREATE VIRTUAL TABLE `kb_fts` USING fts5(collection_id UNINDEXED, text, tokenize = 'porter unicode61');--> statement-breakpoint
CREATE TRIGGER `kb_passages_fts_insert` AFTER INSERT ON `kb_passages` BEGIN
  INSERT INTO `kb_fts` (rowid, collection_id, text) VALUES (new.row_key, new.collection_id, coalesce(new.heading || ' ', '') || new.text);
END;--> statement-breakpoint
CREATE TRIGGER `kb_passages_fts_delete` AFTER DELETE ON `kb_passages` BEGIN
  DELETE FROM `kb_fts` WHERE rowid = old.row_key;
END;
