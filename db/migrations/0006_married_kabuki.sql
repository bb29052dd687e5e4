CREATE TABLE `node_rollups` (
	`key` integer PRIMARY KEY NOT NULL,
	`probes` integer NOT NULL,
	`failures` integer NOT NULL,
	`latency` text NOT NULL
);
--> statement-breakpoint
ALTER TABLE `nodes` ADD `seq` integer;