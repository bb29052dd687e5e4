CREATE TABLE `balancers` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`public_url` text NOT NULL,
	`node_urls` text NOT NULL,
	`resolve_dns` integer NOT NULL,
	`samples_per_cycle` integer NOT NULL,
	`interval_ms` integer NOT NULL,
	`timeout_ms` integer NOT NULL,
	`legacy_probe_timeout_ms` integer NOT NULL,
	`allow_legacy` integer NOT NULL,
	`audit_legacy` integer NOT NULL,
	`legacy_versions` text NOT NULL,
	`headers` text NOT NULL,
	`attribution_header` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `balancers_name_unique` ON `balancers` (`name`);--> statement-breakpoint
CREATE TABLE `nodes` (
	`id` text PRIMARY KEY NOT NULL,
	`balancer_id` text NOT NULL,
	`key` text NOT NULL,
	`origin` text NOT NULL,
	`url` text NOT NULL,
	`address` text,
	`served_by` text,
	`created_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	FOREIGN KEY (`balancer_id`) REFERENCES `balancers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `nodes_balancer_key` ON `nodes` (`balancer_id`,`key`);--> statement-breakpoint
CREATE INDEX `nodes_balancer` ON `nodes` (`balancer_id`);--> statement-breakpoint
CREATE TABLE `node_states` (
	`node_id` text PRIMARY KEY NOT NULL,
	`verdict` text NOT NULL,
	`fingerprint_key` text NOT NULL,
	`client_era` text NOT NULL,
	`reason` text NOT NULL,
	`probed_at` integer NOT NULL,
	`duration_ms` integer NOT NULL,
	`fingerprint_since` integer NOT NULL,
	`probes` integer NOT NULL,
	`failures` integer NOT NULL,
	`consecutive_failures` integer NOT NULL,
	FOREIGN KEY (`node_id`) REFERENCES `nodes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `node_history` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`node_id` text NOT NULL,
	`fingerprint_key` text NOT NULL,
	`client_era` text NOT NULL,
	`reason` text NOT NULL,
	`negotiated_version` text,
	`served_eras` text NOT NULL,
	`started_at` integer NOT NULL,
	`ended_at` integer,
	`probes` integer,
	`failures` integer,
	FOREIGN KEY (`node_id`) REFERENCES `nodes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `node_history_node_started` ON `node_history` (`node_id`,`started_at`);--> statement-breakpoint
CREATE TABLE `hourly_rollups` (
	`node_id` text NOT NULL,
	`balancer_id` text NOT NULL,
	`hour_start` integer NOT NULL,
	`probes` integer NOT NULL,
	`failures` integer NOT NULL,
	`latency` text NOT NULL,
	PRIMARY KEY(`node_id`, `hour_start`),
	FOREIGN KEY (`node_id`) REFERENCES `nodes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `hourly_rollups_balancer_hour` ON `hourly_rollups` (`balancer_id`,`hour_start`);--> statement-breakpoint
CREATE TABLE `events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`balancer_id` text NOT NULL,
	`node_id` text,
	`type` text NOT NULL,
	`at` integer NOT NULL,
	`data` text NOT NULL,
	FOREIGN KEY (`balancer_id`) REFERENCES `balancers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `events_id_unique` ON `events` (`id`);--> statement-breakpoint
CREATE INDEX `events_balancer_at` ON `events` (`balancer_id`,`at`);--> statement-breakpoint
CREATE INDEX `events_type_at` ON `events` (`type`,`at`);--> statement-breakpoint
CREATE INDEX `events_at` ON `events` (`at`);--> statement-breakpoint
CREATE TABLE `rollout_windows` (
	`id` text PRIMARY KEY NOT NULL,
	`balancer_id` text NOT NULL,
	`target` text NOT NULL,
	`deadline` integer NOT NULL,
	`opened_at` integer NOT NULL,
	`closed_at` integer,
	FOREIGN KEY (`balancer_id`) REFERENCES `balancers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `rollout_windows_balancer` ON `rollout_windows` (`balancer_id`,`closed_at`);--> statement-breakpoint
CREATE TABLE `balancer_states` (
	`balancer_id` text PRIMARY KEY NOT NULL,
	`status` text NOT NULL,
	`severity` text,
	`degraded` integer NOT NULL,
	`analysis` text NOT NULL,
	`snapshot` text NOT NULL,
	`analyzed_at` integer NOT NULL,
	`cycles` integer NOT NULL,
	FOREIGN KEY (`balancer_id`) REFERENCES `balancers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `poller_lease` (
	`name` text PRIMARY KEY NOT NULL,
	`holder` text NOT NULL,
	`pid` integer NOT NULL,
	`hostname` text NOT NULL,
	`acquired_at` integer NOT NULL,
	`renewed_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`last_cycle_at` integer
);
