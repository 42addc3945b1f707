CREATE TABLE `file_chunks` (
	`file_id` text NOT NULL,
	`seq` integer NOT NULL,
	`bytes` blob NOT NULL,
	PRIMARY KEY(`file_id`, `seq`),
	FOREIGN KEY (`file_id`) REFERENCES `files`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `sign_in_throttles` (
	`name` text PRIMARY KEY NOT NULL,
	`count` integer NOT NULL,
	`last_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sign_in_throttles_last` ON `sign_in_throttles` (`last_at`);--> statement-breakpoint
ALTER TABLE `slot_demand` ADD `granted` integer;--> statement-breakpoint
ALTER TABLE `slot_demand` ADD `granted_at` integer;