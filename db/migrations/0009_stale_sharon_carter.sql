CREATE TABLE `sink_alerts` (
	`endpoint_id` text NOT NULL,
	`fingerprint` text NOT NULL,
	`balancer_id` text NOT NULL,
	`alertname` text NOT NULL,
	`labels` text NOT NULL,
	`annotations` text NOT NULL,
	`generator_url` text NOT NULL,
	`starts_at` integer NOT NULL,
	`ends_at` integer,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`endpoint_id`, `fingerprint`),
	FOREIGN KEY (`endpoint_id`) REFERENCES `webhook_endpoints`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sink_alerts_ends` ON `sink_alerts` (`ends_at`);--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `kind` text DEFAULT 'webhook' NOT NULL;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `alertmanager` text;