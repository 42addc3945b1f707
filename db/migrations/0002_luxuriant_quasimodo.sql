CREATE TABLE `cluster_settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `usage_daily` (
	`day` text NOT NULL,
	`key_id` text NOT NULL,
	`model` text NOT NULL,
	`requests` integer NOT NULL,
	`errors` integer NOT NULL,
	`prompt_tokens` integer NOT NULL,
	`cached_tokens` integer NOT NULL,
	`completion_tokens` integer NOT NULL,
	`cost_micros` integer NOT NULL,
	PRIMARY KEY(`day`, `key_id`, `model`)
);
