ALTER TABLE "balancers" ADD COLUMN "node_names" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "nodes" ADD COLUMN "name" text;