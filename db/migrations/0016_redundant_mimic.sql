DROP TABLE `node_states`;--> statement-breakpoint
DROP TABLE `node_history`;--> statement-breakpoint
DROP TABLE `stdio_target_history`;--> statement-breakpoint
DROP TABLE `stdio_target_states`;