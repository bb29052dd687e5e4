ALTER TABLE `balancers` ADD `catalog` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `balancers` ADD `catalog_every` integer DEFAULT 5 NOT NULL;