CREATE TABLE `rate_counts` (
	`plane` text NOT NULL,
	`name` text NOT NULL,
	`window_start` integer NOT NULL,
	`count` integer NOT NULL,
	`reported_at` integer NOT NULL,
	PRIMARY KEY(`plane`, `name`, `window_start`)
);
--> statement-breakpoint
CREATE INDEX `rate_counts_window` ON `rate_counts` (`window_start`);