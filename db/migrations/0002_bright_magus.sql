CREATE TABLE `shards` (
	`id` text PRIMARY KEY NOT NULL,
	`model` text NOT NULL,
	`node_id` text NOT NULL,
	`profile` integer NOT NULL,
	`gpus` text NOT NULL,
	`per_card_bytes` integer NOT NULL,
	`ram_bytes` integer NOT NULL,
	`cores` integer NOT NULL,
	`spec_hash` text NOT NULL,
	`state` text NOT NULL,
	`created_at` integer NOT NULL,
	`state_since` integer NOT NULL,
	`ready_at` integer,
	`reason` text
);
--> statement-breakpoint
CREATE INDEX `shards_model` ON `shards` (`model`);--> statement-breakpoint
ALTER TABLE `models` ADD `def` text;--> statement-breakpoint
ALTER TABLE `models` ADD `facts` text;--> statement-breakpoint
ALTER TABLE `models` ADD `origin` text;--> statement-breakpoint
ALTER TABLE `models` ADD `stopped` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `node_shards` ADD `launch` text;