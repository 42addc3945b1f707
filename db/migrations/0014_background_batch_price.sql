ALTER TABLE `models` ADD `price_batch_percent` integer;--> statement-breakpoint
ALTER TABLE `stored_responses` ADD `lease_until` integer;