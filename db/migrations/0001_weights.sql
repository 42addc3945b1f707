CREATE TABLE `mirror_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`source` text NOT NULL,
	`version_dir` text NOT NULL,
	`digest` text NOT NULL,
	`pinned` text NOT NULL,
	`status` text NOT NULL,
	`bytes_total` integer,
	`error` text,
	`created_at` integer NOT NULL,
	`completed_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mirror_versions_version` ON `mirror_versions` (`version_dir`,`digest`);--> statement-breakpoint
ALTER TABLE `models` ADD `origin` text;--> statement-breakpoint
ALTER TABLE `models` ADD `allow_pickle` integer DEFAULT false NOT NULL;