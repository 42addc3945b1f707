CREATE TABLE `session_places` (
	`session_key` integer PRIMARY KEY NOT NULL,
	`replica_id` text NOT NULL,
	`seen_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `session_places_replica_seen` ON `session_places` (`replica_id`,`seen_at`);