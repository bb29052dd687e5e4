CREATE TABLE `subject_history` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`subject_id` text NOT NULL,
	`region` text DEFAULT 'default' NOT NULL,
	`kind` text NOT NULL,
	`node_id` text,
	`target_id` text,
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
	FOREIGN KEY (`node_id`) REFERENCES `nodes`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`target_id`) REFERENCES `stdio_targets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `subject_history_subject_started` ON `subject_history` (`subject_id`,`region`,`started_at`);--> statement-breakpoint
CREATE INDEX `subject_history_node` ON `subject_history` (`node_id`);--> statement-breakpoint
CREATE INDEX `subject_history_target` ON `subject_history` (`target_id`);--> statement-breakpoint
CREATE TABLE `subject_states` (
	`subject_id` text NOT NULL,
	`region` text DEFAULT 'default' NOT NULL,
	`kind` text NOT NULL,
	`node_id` text,
	`target_id` text,
	`verdict` text NOT NULL,
	`verdict_digest` text,
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
	PRIMARY KEY(`subject_id`, `region`),
	FOREIGN KEY (`node_id`) REFERENCES `nodes`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`target_id`) REFERENCES `stdio_targets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `subject_states_node` ON `subject_states` (`node_id`);--> statement-breakpoint
CREATE INDEX `subject_states_target` ON `subject_states` (`target_id`);--> statement-breakpoint
-- Keep every stored state and span: nodes and stdio targets become one probed subject, in the default region.
INSERT INTO subject_states (subject_id, region, kind, node_id, target_id, verdict, verdict_digest, fingerprint_key, last_available_key, client_era, reason, probed_at, duration_ms, fingerprint_since, probes, failures, consecutive_failures)
  SELECT node_id, 'default', 'node', node_id, NULL, verdict, verdict_digest, fingerprint_key, last_available_key, client_era, reason, probed_at, duration_ms, fingerprint_since, probes, failures, consecutive_failures FROM node_states;--> statement-breakpoint
INSERT INTO subject_states (subject_id, region, kind, node_id, target_id, verdict, verdict_digest, fingerprint_key, last_available_key, client_era, reason, probed_at, duration_ms, fingerprint_since, probes, failures, consecutive_failures)
  SELECT target_id, 'default', 'stdio', NULL, target_id, verdict, verdict_digest, fingerprint_key, last_available_key, client_era, reason, probed_at, duration_ms, fingerprint_since, probes, failures, consecutive_failures FROM stdio_target_states;--> statement-breakpoint
INSERT INTO subject_history (id, subject_id, region, kind, node_id, target_id, fingerprint_key, client_era, reason, negotiated_version, served_eras, is_change, started_at, ended_at, probes, failures)
  SELECT id, node_id, 'default', 'node', node_id, NULL, fingerprint_key, client_era, reason, negotiated_version, served_eras, is_change, started_at, ended_at, probes, failures FROM node_history;--> statement-breakpoint
INSERT INTO subject_history (subject_id, region, kind, node_id, target_id, fingerprint_key, client_era, reason, negotiated_version, served_eras, is_change, started_at, ended_at, probes, failures)
  SELECT target_id, 'default', 'stdio', NULL, target_id, fingerprint_key, client_era, reason, negotiated_version, served_eras, is_change, started_at, ended_at, probes, failures FROM stdio_target_history ORDER BY id;
