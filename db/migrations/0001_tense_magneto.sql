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
CREATE UNIQUE INDEX `nodes_credential_hash_unique` ON `nodes` (`credential_hash`);