ALTER TABLE "balancer_region_states" ADD COLUMN "analysis_digest" text;--> statement-breakpoint
ALTER TABLE "balancer_region_states" ADD COLUMN "cycles" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "balancer_states" ADD COLUMN "analysis_digest" text;--> statement-breakpoint
UPDATE "balancer_region_states" SET "cycles" = coalesce(("snapshot"->>'cycle')::int, 0);--> statement-breakpoint
UPDATE "balancer_states" SET "cycles" = coalesce(("snapshot"->>'cycle')::int, "cycles");--> statement-breakpoint
ALTER TABLE "balancer_states" SET (toast_tuple_target = 128);--> statement-breakpoint
ALTER TABLE "balancer_region_states" SET (toast_tuple_target = 128);
