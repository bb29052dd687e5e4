CREATE TABLE "node_minute_rollups" (
	"key" bigint PRIMARY KEY NOT NULL,
	"minute" integer NOT NULL,
	"probes" integer NOT NULL,
	"failures" integer NOT NULL,
	"latency" text NOT NULL
);
