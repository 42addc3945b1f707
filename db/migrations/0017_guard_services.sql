ALTER TABLE `guard_policies` ADD `fail` text DEFAULT 'open' NOT NULL;--> statement-breakpoint
ALTER TABLE `guard_policies` ADD `stream` text;