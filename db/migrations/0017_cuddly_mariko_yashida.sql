CREATE TABLE `balancer_region_states` (
	`balancer_id` text NOT NULL,
	`region` text NOT NULL,
	`analysis` text NOT NULL,
	`snapshot` text NOT NULL,
	`analyzed_at` integer NOT NULL,
	PRIMARY KEY(`balancer_id`, `region`),
	FOREIGN KEY (`balancer_id`) REFERENCES `balancers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `regions` (
	`id` integer PRIMARY KEY NOT NULL,
	`name` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `regions_name_unique` ON `regions` (`name`);--> statement-breakpoint
ALTER TABLE `balancers` ADD `regions` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
-- The rollup rows stored so far carry no region: they are region 0, default.
INSERT INTO `regions` (`id`, `name`) VALUES (0, 'default');
