CREATE TABLE `batch_lines` (
	`batch_id` text NOT NULL,
	`custom_id` text NOT NULL,
	`line` integer NOT NULL,
	`body` text NOT NULL,
	`status` integer,
	`result` text,
	`request_id` text,
	PRIMARY KEY(`batch_id`, `custom_id`),
	FOREIGN KEY (`batch_id`) REFERENCES `batches`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `batch_lines_todo` ON `batch_lines` (`batch_id`,`status`);--> statement-breakpoint
CREATE TABLE `batches` (
	`id` text PRIMARY KEY NOT NULL,
	`key_id` text NOT NULL,
	`endpoint` text NOT NULL,
	`input_file_id` text NOT NULL,
	`completion_window` text NOT NULL,
	`status` text NOT NULL,
	`output_file_id` text,
	`error_file_id` text,
	`errors` text,
	`metadata` text,
	`total` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`in_progress_at` integer,
	`finalizing_at` integer,
	`completed_at` integer,
	`failed_at` integer,
	`cancelling_at` integer,
	`cancelled_at` integer,
	`expired_at` integer
);
--> statement-breakpoint
CREATE INDEX `batches_key` ON `batches` (`key_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `batches_status` ON `batches` (`status`);--> statement-breakpoint
CREATE TABLE `files` (
	`id` text PRIMARY KEY NOT NULL,
	`key_id` text NOT NULL,
	`project_id` text,
	`purpose` text NOT NULL,
	`filename` text NOT NULL,
	`bytes` integer NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer
);
--> statement-breakpoint
CREATE INDEX `files_key` ON `files` (`key_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `files_project` ON `files` (`project_id`);--> statement-breakpoint
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