ALTER TABLE `limits` ADD `max_parallel` integer;--> statement-breakpoint
ALTER TABLE `limits` ADD `weight` integer;