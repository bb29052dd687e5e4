import { sql } from 'drizzle-orm';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import type { OAuthClientCredentialsInput } from '@/lib/schemas/balancer';

/** One registered balancer: every field of the registration contract, stored as given. */
export const balancers = sqliteTable('balancers', {
  id: text('id').primaryKey(),
  name: text('name').notNull().unique(),
  publicUrl: text('public_url').notNull(),
  nodeUrls: text('node_urls', { mode: 'json' }).$type<string[]>().notNull(),
  resolveDns: integer('resolve_dns', { mode: 'boolean' }).notNull(),
  samplesPerCycle: integer('samples_per_cycle').notNull(),
  intervalMs: integer('interval_ms').notNull(),
  timeoutMs: integer('timeout_ms').notNull(),
  legacyProbeTimeoutMs: integer('legacy_probe_timeout_ms').notNull(),
  allowLegacy: integer('allow_legacy', { mode: 'boolean' }).notNull(),
  auditLegacy: integer('audit_legacy', { mode: 'boolean' }).notNull(),
  legacyVersions: text('legacy_versions', { mode: 'json' }).$type<string[]>().notNull(),
  /** Values as given: `env:NAME` stays a reference and is resolved at probe time. */
  headers: text('headers', { mode: 'json' }).$type<Record<string, string>>().notNull(),
  attributionHeader: text('attribution_header'),
  catalog: integer('catalog', { mode: 'boolean' }).notNull().default(true),
  catalogEvery: integer('catalog_every').notNull().default(5),
  /** OAuth client credentials; a literal clientSecret is stored as given, `env:NAME` stays a reference. */
  auth: text('auth', { mode: 'json' }).$type<OAuthClientCredentialsInput>(),
  /** The regions whose workers must probe it; empty: every region that has a worker. */
  regions: text('regions', { mode: 'json' })
    .$type<string[]>()
    .notNull()
    .default(sql`'[]'`),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

export type BalancerRow = typeof balancers.$inferSelect;
