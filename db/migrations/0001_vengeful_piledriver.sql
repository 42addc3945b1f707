ALTER TABLE `models` ADD `routing_profile` text;--> statement-breakpoint
ALTER TABLE `models` ADD `fallbacks` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `models` ADD `slots` integer;--> statement-breakpoint
ALTER TABLE `models` ADD `price_prompt` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `models` ADD `price_cached` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `models` ADD `price_completion` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `models` ADD `upstream_model` text;--> statement-breakpoint
ALTER TABLE `models` ADD `external_keys` text;--> statement-breakpoint
ALTER TABLE `usage` ADD `served_model` text;--> statement-breakpoint
ALTER TABLE `usage` ADD `cached_tokens` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `usage` ADD `cost_micros` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `usage` ADD `queue_ms` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `usage` ADD `replica_id` text;--> statement-breakpoint
ALTER TABLE `usage` ADD `profile` text;