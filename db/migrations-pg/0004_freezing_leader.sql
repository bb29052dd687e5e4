DROP TABLE "node_states" CASCADE;--> statement-breakpoint
DROP TABLE "node_history" CASCADE;--> statement-breakpoint
DROP TABLE "stdio_target_history" CASCADE;--> statement-breakpoint
DROP TABLE "stdio_target_states" CASCADE;