CREATE TABLE `replicas` (
	`id` text PRIMARY KEY NOT NULL,
	`node_id` text NOT NULL,
	`model` text NOT NULL,
	`created_at` integer NOT NULL,
	`profile` integer,
	`gpus` text,
	`per_card_bytes` integer,
	`ram_bytes` integer,
	`cores` integer,
	`spec_hash` text,
	`state` text,
	`state_since` integer,
	`ready_at` integer,
	`reason` text,
	`engine` text,
	`model_path` text,
	`args` text,
	`launch` text,
	`desired_at` integer,
	FOREIGN KEY (`node_id`) REFERENCES `nodes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `replicas_model` ON `replicas` (`model`);--> statement-breakpoint
CREATE INDEX `replicas_node` ON `replicas` (`node_id`);--> statement-breakpoint
-- A replica was stored in two tables: `shards` (the reconciler's placement and state) and
-- `node_shards` (what its node is meant to run). Each replica's rows are merged into one row,
-- the two halves side by side; a replica in only one table keeps the other half null.
-- Replicas of a node that no longer exists (`shards.node_id` had no foreign key) are not carried
-- over: the new key would refuse them, and the reconciler stops such a replica at its next step.
INSERT INTO `replicas` (
	`id`, `node_id`, `model`, `created_at`,
	`profile`, `gpus`, `per_card_bytes`, `ram_bytes`, `cores`, `spec_hash`, `state`, `state_since`,
	`ready_at`, `reason`,
	`engine`, `model_path`, `args`, `launch`, `desired_at`
)
SELECT s.`id`, COALESCE(ns.`node_id`, s.`node_id`), s.`model`, s.`created_at`,
	s.`profile`, s.`gpus`, s.`per_card_bytes`, s.`ram_bytes`, s.`cores`, s.`spec_hash`, s.`state`,
	s.`state_since`, s.`ready_at`, s.`reason`,
	ns.`engine`, ns.`model_path`, ns.`args`, ns.`launch`, ns.`created_at`
FROM `shards` s LEFT JOIN `node_shards` ns ON ns.`shard_id` = s.`id`
WHERE COALESCE(ns.`node_id`, s.`node_id`) IN (SELECT `id` FROM `nodes`)
UNION ALL
SELECT ns.`shard_id`, ns.`node_id`, ns.`model`, ns.`created_at`,
	NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	ns.`engine`, ns.`model_path`, ns.`args`, ns.`launch`, ns.`created_at`
FROM `node_shards` ns
WHERE ns.`shard_id` NOT IN (SELECT `id` FROM `shards`)
	AND ns.`node_id` IN (SELECT `id` FROM `nodes`);
--> statement-breakpoint
DROP TABLE `node_shards`;--> statement-breakpoint
DROP TABLE `shards`;