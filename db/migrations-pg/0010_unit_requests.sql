ALTER TABLE "poll_units" ADD COLUMN "requested_seq" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "poll_units" ADD COLUMN "answered_seq" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "poll_units" ADD COLUMN "stored_seq" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "poll_units" ADD COLUMN "last_cycle_probes" integer DEFAULT 0 NOT NULL;