ALTER TABLE `limits` ADD `cache` integer;--> statement-breakpoint
ALTER TABLE `limits` ADD `cache_temperature` integer;--> statement-breakpoint
ALTER TABLE `limits` ADD `cache_similar_permille` integer;--> statement-breakpoint
ALTER TABLE `models` ADD `price_cache_hit` integer;--> statement-breakpoint
ALTER TABLE `usage` ADD `answer_cache` text;