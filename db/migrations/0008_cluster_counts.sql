CREATE TABLE `budget_slices` (
	`scope_kind` text NOT NULL,
	`scope_id` text NOT NULL,
	`period` text NOT NULL,
	`period_start` integer NOT NULL,
	`unit` text NOT NULL,
	`committed` integer NOT NULL,
	`last_grant` integer NOT NULL,
	PRIMARY KEY(`scope_kind`, `scope_id`, `period`, `period_start`, `unit`)
);
--> statement-breakpoint
CREATE TABLE `rate_counts` (
	`plane` text NOT NULL,
	`name` text NOT NULL,
	`window_start` integer NOT NULL,
	`count` integer NOT NULL,
	`reported_at` integer NOT NULL,
	PRIMARY KEY(`plane`, `name`, `window_start`)
);
--> statement-breakpoint
CREATE INDEX `rate_counts_window` ON `rate_counts` (`window_start`);--> statement-breakpoint
CREATE TABLE `slot_demand` (
	`plane` text NOT NULL,
	`replica_id` text NOT NULL,
	`demand` integer NOT NULL,
	`reported_at` integer NOT NULL,
	PRIMARY KEY(`plane`, `replica_id`)
);
