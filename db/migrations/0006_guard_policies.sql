CREATE TABLE `guard_policies` (
	`name` text PRIMARY KEY NOT NULL,
	`scope_kind` text NOT NULL,
	`scope_id` text NOT NULL,
	`apply_to` text NOT NULL,
	`restore` integer DEFAULT false NOT NULL,
	`rules` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `usage` ADD `guard` text;