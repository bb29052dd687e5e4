CREATE TABLE `dashboard_sessions` (
	`sid` text PRIMARY KEY NOT NULL,
	`issued_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`issued_via` text NOT NULL,
	`role` text NOT NULL,
	`user_sub` text,
	`user_email` text,
	`user_name` text,
	`address` text
);
--> statement-breakpoint
CREATE INDEX `dashboard_sessions_expires` ON `dashboard_sessions` (`expires_at`);