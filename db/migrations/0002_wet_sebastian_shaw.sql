CREATE TABLE `portal_prefs` (
	`user_id` text PRIMARY KEY NOT NULL,
	`locale` text,
	`time_zone` text,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
