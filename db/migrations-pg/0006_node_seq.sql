-- Node seqs (the low part of the rollup key) come from a sequence: writers creating nodes at once no longer
-- wait on one lock for max(seq) + 1. Values taken by a write that rolls back are skipped, never reused.
CREATE SEQUENCE IF NOT EXISTS "node_seq" AS integer MINVALUE 1 MAXVALUE 16777215 NO CYCLE;
--> statement-breakpoint
SELECT setval('node_seq', (SELECT coalesce(max("seq"), 0) + 1 FROM "nodes"), false);
