CREATE TABLE `poll_units` (
	`kind` text NOT NULL,
	`unit_id` text NOT NULL,
	`region` text NOT NULL,
	`holder` text,
	`pid` integer,
	`hostname` text,
	`token` integer DEFAULT 0 NOT NULL,
	`expires_at` integer DEFAULT 0 NOT NULL,
	`due_at` integer NOT NULL,
	`last_cycle_at` integer,
	PRIMARY KEY(`kind`, `unit_id`, `region`)
);
--> statement-breakpoint
CREATE INDEX `poll_units_due_idx` ON `poll_units` (`region`,`due_at`);--> statement-breakpoint
CREATE TABLE `poll_workers` (
	`holder` text PRIMARY KEY NOT NULL,
	`region` text NOT NULL,
	`pid` integer NOT NULL,
	`hostname` text NOT NULL,
	`started_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`units_held` integer DEFAULT 0 NOT NULL,
	`last_cycle_at` integer
);
