CREATE TABLE `mcp_breakers` (
	`server` text PRIMARY KEY NOT NULL,
	`failures` integer NOT NULL,
	`open_until` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `mcp_call_counts` (
	`caller` text NOT NULL,
	`server` text NOT NULL,
	`second` integer NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`caller`, `server`, `second`)
);
--> statement-breakpoint
CREATE INDEX `mcp_call_counts_second` ON `mcp_call_counts` (`second`);--> statement-breakpoint
CREATE TABLE `mcp_person_tokens` (
	`server` text NOT NULL,
	`user_id` text NOT NULL,
	`sealed` text NOT NULL,
	`expires_at` integer,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`server`, `user_id`),
	FOREIGN KEY (`server`) REFERENCES `mcp_servers`(`name`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `mcp_servers` ADD `auth` text DEFAULT 'headers' NOT NULL;--> statement-breakpoint
ALTER TABLE `mcp_servers` ADD `oauth_client` text;