ALTER TABLE `balancer_region_states` ADD `analysis_digest` text;--> statement-breakpoint
ALTER TABLE `balancer_region_states` ADD `cycles` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `balancer_states` ADD `analysis_digest` text;--> statement-breakpoint
UPDATE `balancer_region_states` SET `cycles` = coalesce(json_extract(`snapshot`, '$.cycle'), 0);--> statement-breakpoint
UPDATE `balancer_states` SET `cycles` = coalesce(json_extract(`snapshot`, '$.cycle'), `cycles`);
