ALTER TABLE `balancers` ADD `node_names` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE `nodes` ADD `name` text;