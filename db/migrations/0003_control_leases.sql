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
