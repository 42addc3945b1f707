CREATE TABLE `stored_responses` (
	`id` text PRIMARY KEY NOT NULL,
	`key_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`response` text NOT NULL,
	`input` text NOT NULL,
	`context` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `stored_responses_expires` ON `stored_responses` (`expires_at`);