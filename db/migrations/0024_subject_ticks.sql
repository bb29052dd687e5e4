CREATE TABLE `subject_ticks` (
	`subject_id` text NOT NULL,
	`region` text NOT NULL,
	`probed_at` integer NOT NULL,
	`duration_ms` integer NOT NULL,
	`probes` integer NOT NULL,
	`failures` integer NOT NULL,
	`consecutive_failures` integer NOT NULL,
	PRIMARY KEY(`subject_id`, `region`),
	FOREIGN KEY (`subject_id`,`region`) REFERENCES `subject_states`(`subject_id`,`region`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Every probe's counters move to the narrow row beside the verdict (hand-added: keep the current values).
INSERT INTO `subject_ticks` (`subject_id`, `region`, `probed_at`, `duration_ms`, `probes`, `failures`, `consecutive_failures`)
  SELECT `subject_id`, `region`, `probed_at`, `duration_ms`, `probes`, `failures`, `consecutive_failures` FROM `subject_states`;--> statement-breakpoint
ALTER TABLE `subject_states` DROP COLUMN `probed_at`;--> statement-breakpoint
ALTER TABLE `subject_states` DROP COLUMN `duration_ms`;--> statement-breakpoint
ALTER TABLE `subject_states` DROP COLUMN `probes`;--> statement-breakpoint
ALTER TABLE `subject_states` DROP COLUMN `failures`;--> statement-breakpoint
ALTER TABLE `subject_states` DROP COLUMN `consecutive_failures`;