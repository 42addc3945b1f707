CREATE TABLE `change_counters` (
	`topic` text PRIMARY KEY NOT NULL,
	`version` integer NOT NULL,
	`changed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `control_leases` (
	`name` text PRIMARY KEY NOT NULL,
	`holder_id` text NOT NULL,
	`holder_url` text NOT NULL,
	`epoch` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `control_planes` (
	`id` text PRIMARY KEY NOT NULL,
	`url` text NOT NULL,
	`cluster_urls` text NOT NULL,
	`seen_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `model_demand` (
	`model` text NOT NULL,
	`control_id` text NOT NULL,
	`wanted_at` integer NOT NULL,
	PRIMARY KEY(`model`, `control_id`)
);
--> statement-breakpoint
CREATE TABLE `replica_use` (
	`replica_id` text NOT NULL,
	`control_id` text NOT NULL,
	`last_used_at` integer NOT NULL,
	PRIMARY KEY(`replica_id`, `control_id`)
);
--> statement-breakpoint
CREATE TABLE `routable_replicas` (
	`id` text PRIMARY KEY NOT NULL,
	`model` text NOT NULL,
	`base_url` text NOT NULL,
	`state` text NOT NULL,
	`slots` integer,
	`published_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sign_in_flows` (
	`state_hash` text PRIMARY KEY NOT NULL,
	`verifier` text NOT NULL,
	`nonce` text NOT NULL,
	`expires_at` integer NOT NULL
);
