CREATE TABLE "balancer_region_states" (
	"balancer_id" text NOT NULL,
	"region" text NOT NULL,
	"analysis" jsonb NOT NULL,
	"snapshot" jsonb NOT NULL,
	"analyzed_at" bigint NOT NULL,
	CONSTRAINT "balancer_region_states_balancer_id_region_pk" PRIMARY KEY("balancer_id","region")
);
--> statement-breakpoint
CREATE TABLE "regions" (
	"id" integer PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	CONSTRAINT "regions_name_unique" UNIQUE("name")
);
--> statement-breakpoint
ALTER TABLE "balancers" ADD COLUMN "regions" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "balancer_region_states" ADD CONSTRAINT "balancer_region_states_balancer_id_balancers_id_fk" FOREIGN KEY ("balancer_id") REFERENCES "public"."balancers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- The rollup rows stored so far carry no region: they are region 0, default.
INSERT INTO "regions" ("id", "name") VALUES (0, 'default');
