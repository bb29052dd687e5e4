ALTER TABLE `node_states` ADD `last_available_key` text;--> statement-breakpoint
ALTER TABLE `node_history` ADD `is_change` integer DEFAULT false NOT NULL;