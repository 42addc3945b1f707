CREATE TABLE `mcp_servers` (
	`name` text PRIMARY KEY NOT NULL,
	`url` text NOT NULL,
	`headers` text NOT NULL,
	`rate` integer,
	`tools` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `limits` ADD `tools` text;