CREATE TABLE `stdio_target_history` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`target_id` text NOT NULL,
	`fingerprint_key` text NOT NULL,
	`client_era` text NOT NULL,
	`reason` text NOT NULL,
	`negotiated_version` text,
	`served_eras` text NOT NULL,
	`is_change` integer DEFAULT false NOT NULL,
	`started_at` integer NOT NULL,
	`ended_at` integer,
	`probes` integer,
	`failures` integer,
	FOREIGN KEY (`target_id`) REFERENCES `stdio_targets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `stdio_target_history_target_started` ON `stdio_target_history` (`target_id`,`started_at`);--> statement-breakpoint
CREATE TABLE `stdio_target_states` (
	`target_id` text PRIMARY KEY NOT NULL,
	`verdict` text NOT NULL,
	`verdict_digest` text NOT NULL,
	`fingerprint_key` text NOT NULL,
	`last_available_key` text,
	`client_era` text NOT NULL,
	`reason` text NOT NULL,
	`probed_at` integer NOT NULL,
	`duration_ms` integer NOT NULL,
	`fingerprint_since` integer NOT NULL,
	`probes` integer NOT NULL,
	`failures` integer NOT NULL,
	`consecutive_failures` integer NOT NULL,
	FOREIGN KEY (`target_id`) REFERENCES `stdio_targets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `stdio_targets` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`command` text NOT NULL,
	`args` text NOT NULL,
	`env` text NOT NULL,
	`env_templates` text NOT NULL,
	`cwd` text NOT NULL,
	`allow_legacy` integer NOT NULL,
	`audit_legacy` integer NOT NULL,
	`legacy_versions` text NOT NULL,
	`interval_ms` integer NOT NULL,
	`timeout_ms` integer NOT NULL,
	`legacy_probe_timeout_ms` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `stdio_targets_name_unique` ON `stdio_targets` (`name`);