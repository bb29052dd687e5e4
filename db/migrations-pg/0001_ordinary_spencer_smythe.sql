CREATE TABLE "poll_units" (
	"kind" text NOT NULL,
	"unit_id" text NOT NULL,
	"region" text NOT NULL,
	"holder" text,
	"pid" integer,
	"hostname" text,
	"token" bigint DEFAULT 0 NOT NULL,
	"expires_at" bigint DEFAULT 0 NOT NULL,
	"due_at" bigint NOT NULL,
	"last_cycle_at" bigint,
	CONSTRAINT "poll_units_kind_unit_id_region_pk" PRIMARY KEY("kind","unit_id","region")
);
--> statement-breakpoint
CREATE TABLE "poll_workers" (
	"holder" text PRIMARY KEY NOT NULL,
	"region" text NOT NULL,
	"pid" integer NOT NULL,
	"hostname" text NOT NULL,
	"started_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"units_held" integer DEFAULT 0 NOT NULL,
	"last_cycle_at" bigint
);
--> statement-breakpoint
CREATE INDEX "poll_units_due_idx" ON "poll_units" USING btree ("region","due_at");