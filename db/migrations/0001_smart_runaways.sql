CREATE TABLE `audit` (
	`id` text PRIMARY KEY NOT NULL,
	`at` integer NOT NULL,
	`actor_kind` text NOT NULL,
	`actor_id` text NOT NULL,
	`actor_name` text NOT NULL,
	`action` text NOT NULL,
	`target_kind` text NOT NULL,
	`target_id` text NOT NULL,
	`org_id` text,
	`before` text,
	`after` text
);
--> statement-breakpoint
CREATE INDEX `audit_at` ON `audit` (`at`);--> statement-breakpoint
CREATE TABLE `budget_counters` (
	`scope_kind` text NOT NULL,
	`scope_id` text NOT NULL,
	`period` text NOT NULL,
	`period_start` integer NOT NULL,
	`micros` integer NOT NULL,
	`tokens` integer NOT NULL,
	PRIMARY KEY(`scope_kind`, `scope_id`, `period`)
);
--> statement-breakpoint
CREATE TABLE `cluster_settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
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
CREATE TABLE `limits` (
	`scope_kind` text NOT NULL,
	`scope_id` text NOT NULL,
	`rpm` integer,
	`tpm` integer,
	`budget_day_micros` integer,
	`budget_month_micros` integer,
	`budget_day_tokens` integer,
	`budget_month_tokens` integer,
	`models` text,
	`max_key_ttl_ms` integer,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`scope_kind`, `scope_id`)
);
--> statement-breakpoint
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
CREATE TABLE `node_shards` (
	`node_id` text NOT NULL,
	`shard_id` text PRIMARY KEY NOT NULL,
	`model` text NOT NULL,
	`engine` text NOT NULL,
	`model_path` text,
	`args` text NOT NULL,
	`created_at` integer NOT NULL,
	`launch` text,
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
CREATE TABLE `orgs` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `orgs_name_unique` ON `orgs` (`name`);--> statement-breakpoint
CREATE TABLE `portal_prefs` (
	`user_id` text PRIMARY KEY NOT NULL,
	`locale` text,
	`time_zone` text,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `projects` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`team_id` text NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `projects_team_name` ON `projects` (`team_id`,`name`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sessions_token_hash_unique` ON `sessions` (`token_hash`);--> statement-breakpoint
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
CREATE TABLE `teams` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `teams_org_name` ON `teams` (`org_id`,`name`);--> statement-breakpoint
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
--> statement-breakpoint
ALTER TABLE `api_keys` ADD `project_id` text REFERENCES projects(id);--> statement-breakpoint
ALTER TABLE `api_keys` ADD `last_used_at` integer;--> statement-breakpoint
ALTER TABLE `models` ADD `routing_profile` text;--> statement-breakpoint
ALTER TABLE `models` ADD `fallbacks` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `models` ADD `slots` integer;--> statement-breakpoint
ALTER TABLE `models` ADD `upstream_model` text;--> statement-breakpoint
ALTER TABLE `models` ADD `external_keys` text;--> statement-breakpoint
ALTER TABLE `models` ADD `origin` text;--> statement-breakpoint
ALTER TABLE `models` ADD `allow_pickle` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `models` ADD `price_prompt` integer;--> statement-breakpoint
ALTER TABLE `models` ADD `price_completion` integer;--> statement-breakpoint
ALTER TABLE `models` ADD `price_cached` integer;--> statement-breakpoint
ALTER TABLE `models` ADD `def` text;--> statement-breakpoint
ALTER TABLE `models` ADD `facts` text;--> statement-breakpoint
ALTER TABLE `models` ADD `declared_in` text;--> statement-breakpoint
ALTER TABLE `models` ADD `stopped` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `usage` ADD `served_model` text;--> statement-breakpoint
ALTER TABLE `usage` ADD `cached_tokens` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `usage` ADD `cost_micros` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `usage` ADD `queue_ms` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `usage` ADD `replica_id` text;--> statement-breakpoint
ALTER TABLE `usage` ADD `profile` text;--> statement-breakpoint
ALTER TABLE `users` ADD `email` text;--> statement-breakpoint
ALTER TABLE `users` ADD `display_name` text;--> statement-breakpoint
ALTER TABLE `users` ADD `org_id` text REFERENCES orgs(id);--> statement-breakpoint
ALTER TABLE `users` ADD `team_id` text REFERENCES teams(id);--> statement-breakpoint
ALTER TABLE `users` ADD `state` text DEFAULT 'active' NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `oidc_subject` text;--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE UNIQUE INDEX `users_oidc_subject_unique` ON `users` (`oidc_subject`);