CREATE TABLE `join_codes` (
	`id` text PRIMARY KEY NOT NULL,
	`secret_hash` text NOT NULL,
	`labels` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`node_id` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `join_codes_secret_hash_unique` ON `join_codes` (`secret_hash`);--> statement-breakpoint
CREATE TABLE `node_shards` (
	`node_id` text NOT NULL,
	`shard_id` text PRIMARY KEY NOT NULL,
	`model` text NOT NULL,
	`engine` text NOT NULL,
	`model_path` text,
	`args` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`node_id`) REFERENCES `nodes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `nodes` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`labels` text NOT NULL,
	`credential_hash` text NOT NULL,
	`cordoned` integer NOT NULL,
	`draining` integer NOT NULL,
	`created_at` integer NOT NULL,
	`last_heard_at` integer,
	`version` text,
	`last_report` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `nodes_credential_hash_unique` ON `nodes` (`credential_hash`);--> statement-breakpoint
ALTER TABLE `models` ADD `routing_profile` text;--> statement-breakpoint
ALTER TABLE `models` ADD `fallbacks` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `models` ADD `slots` integer;--> statement-breakpoint
ALTER TABLE `models` ADD `price_prompt` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `models` ADD `price_cached` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `models` ADD `price_completion` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `models` ADD `upstream_model` text;--> statement-breakpoint
ALTER TABLE `models` ADD `external_keys` text;--> statement-breakpoint
ALTER TABLE `usage` ADD `served_model` text;--> statement-breakpoint
ALTER TABLE `usage` ADD `cached_tokens` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `usage` ADD `cost_micros` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `usage` ADD `queue_ms` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `usage` ADD `replica_id` text;--> statement-breakpoint
ALTER TABLE `usage` ADD `profile` text;