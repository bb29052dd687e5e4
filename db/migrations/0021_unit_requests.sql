ALTER TABLE `poll_units` ADD `requested_seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `poll_units` ADD `answered_seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `poll_units` ADD `stored_seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `poll_units` ADD `last_cycle_probes` integer DEFAULT 0 NOT NULL;