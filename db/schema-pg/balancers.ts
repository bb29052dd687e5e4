import { sql } from 'drizzle-orm';
import { bigint, boolean, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import type { OAuthClientCredentialsInput } from '@/lib/schemas/balancer';

/** PostgreSQL twin of db/schema/balancers.ts. */
export const balancers = pgTable('balancers', {
  id: text('id').primaryKey(),
  name: text('name').notNull().unique(),
  publicUrl: text('public_url').notNull(),
  nodeUrls: jsonb('node_urls').$type<string[]>().notNull(),
  resolveDns: boolean('resolve_dns').notNull(),
  samplesPerCycle: integer('samples_per_cycle').notNull(),
  intervalMs: integer('interval_ms').notNull(),
  timeoutMs: integer('timeout_ms').notNull(),
  legacyProbeTimeoutMs: integer('legacy_probe_timeout_ms').notNull(),
  allowLegacy: boolean('allow_legacy').notNull(),
  auditLegacy: boolean('audit_legacy').notNull(),
  legacyVersions: jsonb('legacy_versions').$type<string[]>().notNull(),
  headers: jsonb('headers').$type<Record<string, string>>().notNull(),
  attributionHeader: text('attribution_header'),
  catalog: boolean('catalog').notNull().default(true),
  catalogEvery: integer('catalog_every').notNull().default(5),
  auth: jsonb('auth').$type<OAuthClientCredentialsInput>(),
  regions: jsonb('regions')
    .$type<string[]>()
    .notNull()
    .default(sql`'[]'::jsonb`),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
});
