CREATE TABLE "revoked_sessions" (
	"sid" text PRIMARY KEY NOT NULL,
	"expires_at" bigint NOT NULL
);
