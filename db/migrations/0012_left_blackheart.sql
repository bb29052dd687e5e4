CREATE TABLE `store_heartbeats` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`holder` text NOT NULL,
	`at` integer NOT NULL,
	`pad` blob NOT NULL
);
--> statement-breakpoint
CREATE TABLE `metric_series` (
	`name` text NOT NULL,
	`labels` text NOT NULL,
	`value` real NOT NULL,
	PRIMARY KEY(`name`, `labels`)
);
--> statement-breakpoint
CREATE TABLE `subject_claims` (
	`subject_id` text PRIMARY KEY NOT NULL,
	`holder` text NOT NULL,
	`expires_at` integer NOT NULL
);
