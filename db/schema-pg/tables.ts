// Generated from db/tables/declaration.ts by `npm run db:generate` (scripts/generate-tables.ts): do not edit.
// The PostgreSQL tables; change the declaration, then regenerate.
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  doublePrecision,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { type Verdict } from '../../lib/probe/types';
import { type RolloutTarget } from '../../lib/rollout/types';
import { type OAuthClientCredentialsInput } from '../../lib/schemas/balancer';
import { USER_ROLES, SESSION_ISSUERS } from '../../lib/schemas/session';
import { TOKEN_SCOPES } from '../../lib/schemas/token';
import { DELIVERY_STATUSES } from '../../lib/schemas/webhook';
import { NODE_ORIGINS, ENDPOINT_KINDS, type AlertmanagerSettings, type SubjectKind } from '../tables/types';
import { bytea } from './types';

/** One registered balancer: every field of the registration contract, stored as given. */
export const balancers = pgTable('balancers', {
  id: text('id').primaryKey(),
  name: text('name').notNull().unique(),
  publicUrl: text('public_url').notNull(),
  nodeUrls: jsonb('node_urls').$type<string[]>().notNull(),
  /** Names configured for listed node URLs, by URL. */
  nodeNames: jsonb('node_names')
    .$type<Record<string, string>>()
    .notNull()
    .default(sql`'{}'::jsonb`),
  resolveDns: boolean('resolve_dns').notNull(),
  samplesPerCycle: integer('samples_per_cycle').notNull(),
  intervalMs: integer('interval_ms').notNull(),
  timeoutMs: integer('timeout_ms').notNull(),
  legacyProbeTimeoutMs: integer('legacy_probe_timeout_ms').notNull(),
  allowLegacy: boolean('allow_legacy').notNull(),
  auditLegacy: boolean('audit_legacy').notNull(),
  legacyVersions: jsonb('legacy_versions').$type<string[]>().notNull(),
  /** Values as given: `env:NAME` stays a reference and is resolved at probe time. */
  headers: jsonb('headers').$type<Record<string, string>>().notNull(),
  attributionHeader: text('attribution_header'),
  catalog: boolean('catalog').notNull().default(true),
  catalogEvery: integer('catalog_every').notNull().default(5),
  /** OAuth client credentials; a literal clientSecret is stored as given, `env:NAME` stays a reference. */
  auth: jsonb('auth').$type<OAuthClientCredentialsInput>(),
  /** The regions whose workers must probe it; empty: every region that has a worker. */
  regions: jsonb('regions')
    .$type<string[]>()
    .notNull()
    .default(sql`'[]'::jsonb`),
  /** The CA bundle its HTTPS nodes are verified with, as given: PEM, `file:PATH` or `env:NAME` (read at probe time); null: the system roots. */
  tlsCa: text('tls_ca'),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
});

export type BalancerRow = typeof balancers.$inferSelect;

export const nodes = pgTable(
  'nodes',
  {
    id: text('id').primaryKey(),
    balancerId: text('balancer_id')
      .notNull()
      .references(() => balancers.id, { onDelete: 'cascade' }),
    /** Stable identity within the balancer: `listed:<url>`, `dns:<address>`, `sample:<servedBy>`. */
    key: text('key').notNull(),
    /** A small integer per node (1, 2, …), the node half of the rollup key. */
    seq: integer('seq'),
    origin: text('origin', { enum: NODE_ORIGINS }).notNull(),
    url: text('url').notNull(),
    address: text('address'),
    servedBy: text('served_by'),
    /** The display name: as configured for a listed node, else the attribution (x-served-by-style) value, else the reverse-DNS name for a DNS node; null: none known. */
    name: text('name'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    lastSeenAt: bigint('last_seen_at', { mode: 'number' }).notNull(),
  },
  (t) => [
    uniqueIndex('nodes_balancer_key').on(t.balancerId, t.key),
    index('nodes_balancer').on(t.balancerId),
    uniqueIndex('nodes_seq').on(t.seq),
  ],
);

export type NodeRow = typeof nodes.$inferSelect;

export const events = pgTable(
  'events',
  {
    /** Insertion order; the cursor of listEvents. */
    seq: bigint('seq', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    id: text('id').notNull().unique(),
    balancerId: text('balancer_id')
      .notNull()
      .references(() => balancers.id, { onDelete: 'cascade' }),
    nodeId: text('node_id'),
    type: text('type').notNull(),
    at: bigint('at', { mode: 'number' }).notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
  },
  (t) => [
    index('events_balancer_at').on(t.balancerId, t.at),
    index('events_type_at').on(t.type, t.at),
    index('events_at').on(t.at),
  ],
);

export type EventRow = typeof events.$inferSelect;

/** A declared rollout: non-uniform is expected until the deadline, then `rollout.stuck`. */
export const rolloutWindows = pgTable(
  'rollout_windows',
  {
    id: text('id').primaryKey(),
    balancerId: text('balancer_id')
      .notNull()
      .references(() => balancers.id, { onDelete: 'cascade' }),
    /** What the nodes are moving to (era, version, served set or fingerprint key), as JSON. */
    target: jsonb('target').$type<RolloutTarget>().notNull(),
    deadline: bigint('deadline', { mode: 'number' }).notNull(),
    openedAt: bigint('opened_at', { mode: 'number' }).notNull(),
    closedAt: bigint('closed_at', { mode: 'number' }),
  },
  (t) => [index('rollout_windows_balancer').on(t.balancerId, t.closedAt)],
);

export type RolloutWindowRow = typeof rolloutWindows.$inferSelect;

/** The latest analysis of each balancer and the snapshot the next cycle diffs against. */
export const balancerStates = pgTable('balancer_states', {
  balancerId: text('balancer_id')
    .primaryKey()
    .references(() => balancers.id, { onDelete: 'cascade' }),
  /** Headline summary columns, so listing balancers does not parse the analysis JSON. */
  status: text('status').notNull(),
  severity: text('severity'),
  /** The one status the UI shows (stuck, rolling, era-split, drift, down, flapping, degraded, uniform, unknown). */
  displayStatus: text('display_status').notNull().default('unknown'),
  degraded: boolean('degraded').notNull(),
  analysis: jsonb('analysis').$type<unknown>().notNull(),
  snapshot: jsonb('snapshot').$type<unknown>().notNull(),
  /**
   * What the analysis and snapshot say, without their time and cycle count (analysisDigest in
   * db/subject-state.ts): a cycle that finds the same writes only `analyzed_at` and `cycles`.
   */
  analysisDigest: text('analysis_digest'),
  analyzedAt: bigint('analyzed_at', { mode: 'number' }).notNull(),
  cycles: integer('cycles').notNull(),
});

export type BalancerStateRow = typeof balancerStates.$inferSelect;

/**
 * Each region's own latest analysis of a balancer and the snapshot its next cycle diffs against. The
 * cross-region analysis (balancer_states) is combined from these rows, one per region that probes it.
 */
export const balancerRegionStates = pgTable(
  'balancer_region_states',
  {
    balancerId: text('balancer_id')
      .notNull()
      .references(() => balancers.id, { onDelete: 'cascade' }),
    region: text('region').notNull(),
    analysis: jsonb('analysis').$type<unknown>().notNull(),
    snapshot: jsonb('snapshot').$type<unknown>().notNull(),
    /** As in balancer_states: a cycle that finds the same writes only `analyzed_at` and `cycles`. */
    analysisDigest: text('analysis_digest'),
    analyzedAt: bigint('analyzed_at', { mode: 'number' }).notNull(),
    /** The region's cycles so far (the snapshot's `cycle`). */
    cycles: integer('cycles').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.balancerId, t.region] })],
);

export type BalancerRegionStateRow = typeof balancerRegionStates.$inferSelect;

/**
 * The regions that ever probed into this store, each with a small integer id (0 is `default`). The id is
 * the region part of the rollup key (db/rollup-key.ts), so a rollup row stays one integer key. Ids are
 * handed out by the store, not a sequence.
 */
export const regions = pgTable('regions', {
  id: integer('id').primaryKey(),
  name: text('name').notNull().unique(),
});

export type RegionRow = typeof regions.$inferSelect;

/**
 * One row per unit of poll work: a balancer or stdio target in one region. A worker claims a due unit by
 * taking an expired lease on its row, bumping `token`; every write of the unit's cycle checks that token.
 * A released row keeps its last holder (for readiness) with `expires_at` 0.
 */
export const pollUnits = pgTable(
  'poll_units',
  {
    kind: text('kind', { enum: ['balancer', 'stdio'] }).notNull(),
    unitId: text('unit_id').notNull(),
    region: text('region').notNull(),
    holder: text('holder'),
    pid: integer('pid'),
    hostname: text('hostname'),
    /** Fencing token: incremented on every claim, so a paused holder's writes are refused. */
    token: bigint('token', { mode: 'number' }).notNull().default(0),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull().default(0),
    dueAt: bigint('due_at', { mode: 'number' }).notNull(),
    lastCycleAt: bigint('last_cycle_at', { mode: 'number' }),
    /** Cycles asked for (probe-now, the fresh gate): each ask bumps it and makes the unit due now. */
    requestedSeq: bigint('requested_seq', { mode: 'number' }).notNull().default(0),
    /** The asks a finished cycle attempted: those seen when its holder claimed the unit. */
    answeredSeq: bigint('answered_seq', { mode: 'number' }).notNull().default(0),
    /** The asks whose cycle stored its results, set in that cycle's fenced write. */
    storedSeq: bigint('stored_seq', { mode: 'number' }).notNull().default(0),
    /** Probes the last cycle that stored made (what a probe-now answers with). */
    lastCycleProbes: integer('last_cycle_probes').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.kind, t.unitId, t.region] }),
    index('poll_units_due_idx').on(t.region, t.dueAt),
  ],
);

export type PollUnitRow = typeof pollUnits.$inferSelect;

/** One row per running poll role: which workers poll, in which region, and when they last renewed. */
export const pollWorkers = pgTable('poll_workers', {
  holder: text('holder').primaryKey(),
  region: text('region').notNull(),
  pid: integer('pid').notNull(),
  hostname: text('hostname').notNull(),
  startedAt: bigint('started_at', { mode: 'number' }).notNull(),
  expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
  unitsHeld: integer('units_held').notNull().default(0),
  lastCycleAt: bigint('last_cycle_at', { mode: 'number' }),
});

export type PollWorkerRow = typeof pollWorkers.$inferSelect;

/** API tokens: only a SHA-256 of the secret is kept; the plain value is shown once, at creation. */
export const apiTokens = pgTable(
  'api_tokens',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    scope: text('scope', { enum: TOKEN_SCOPES }).notNull(),
    /** The first characters of the token, so an operator can tell tokens apart without the secret. */
    prefix: text('prefix').notNull(),
    hash: text('hash').notNull().unique(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    lastUsedAt: bigint('last_used_at', { mode: 'number' }),
    /** Who minted it: `user:<sub>`, `admin` (the admin secret or its session), `local`; null before tokens had owners. */
    createdBy: text('created_by'),
    /** Their name as shown when it was minted (the user’s email or name). */
    createdByName: text('created_by_name'),
    revokedAt: bigint('revoked_at', { mode: 'number' }),
    /** When it stops working (epoch ms); null: it does not expire. An expired token is refused. */
    expiresAt: bigint('expires_at', { mode: 'number' }),
  },
  (t) => [index('api_tokens_created').on(t.createdAt), index('api_tokens_created_by').on(t.createdBy)],
);

export type ApiTokenRow = typeof apiTokens.$inferSelect;

/** A webhook endpoint. Signing secrets are needed in clear to sign, so they are stored but never returned. */
export const webhookEndpoints = pgTable('webhook_endpoints', {
  id: text('id').primaryKey(),
  kind: text('kind', { enum: ENDPOINT_KINDS }).notNull().default('webhook'),
  name: text('name').notNull().unique(),
  url: text('url').notNull(),
  alertmanager: jsonb('alertmanager').$type<AlertmanagerSettings>(),
  description: text('description').notNull(),
  /** Event types delivered; empty means every type. */
  eventTypes: jsonb('event_types').$type<string[]>().notNull(),
  /** Only events of these balancers; empty means every balancer. */
  balancerIds: jsonb('balancer_ids').$type<string[]>().notNull(),
  secret: text('secret').notNull(),
  /** The secret before the last rotation, still signed with until `previousSecretUntil`. */
  previousSecret: text('previous_secret'),
  previousSecretUntil: bigint('previous_secret_until', { mode: 'number' }),
  enabled: boolean('enabled').notNull(),
  disabledReason: text('disabled_reason'),
  disabledAt: bigint('disabled_at', { mode: 'number' }),
  /** When the current run of failed attempts began; null while the endpoint is healthy. */
  failingSince: bigint('failing_since', { mode: 'number' }),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
});

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;

/** The outbox: one row per (event, endpoint), written in the event's transaction, then delivered and retried. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventId: text('event_id'),
    balancerId: text('balancer_id'),
    type: text('type').notNull(),
    /** The exact body sent, so every attempt and a redelivery carry the same bytes and webhook-id. */
    payload: text('payload').notNull(),
    status: text('status', { enum: DELIVERY_STATUSES }).notNull(),
    /** Set on alerts held by an open rollout window. */
    rolloutWindowId: text('rollout_window_id'),
    attempts: integer('attempts').notNull(),
    nextAttemptAt: bigint('next_attempt_at', { mode: 'number' }),
    lastAttemptAt: bigint('last_attempt_at', { mode: 'number' }),
    lastHttpStatus: integer('last_http_status'),
    lastError: text('last_error'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    completedAt: bigint('completed_at', { mode: 'number' }),
  },
  (t) => [
    index('webhook_deliveries_due').on(t.status, t.nextAttemptAt),
    index('webhook_deliveries_endpoint').on(t.endpointId, t.createdAt),
  ],
);

export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;

/** Every attempt of every delivery: the per-endpoint delivery log. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    endpointId: text('endpoint_id').notNull(),
    at: bigint('at', { mode: 'number' }).notNull(),
    httpStatus: integer('http_status'),
    /** ok | http_3xx | http_4xx | http_5xx | gone | timeout | reset | refused | egress_refused | network_error */
    outcome: text('outcome').notNull(),
    error: text('error'),
    durationMs: integer('duration_ms').notNull(),
  },
  (t) => [index('webhook_attempts_delivery').on(t.deliveryId, t.at)],
);

export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;

/**
 * Per node and hour: probe count, failures and a sparse latency histogram. The key packs hour and node
 * into the rowid (hour × 2^24 + node seq, 64 bits), so the table is one B-tree with no second index: a
 * quiet fleet's new hour costs a few dozen bytes a node, the current hour's rows sit together (cheap
 * updates), and pruning is one range delete. See db/rollup-key.ts.
 */
export const nodeRollups = pgTable('node_rollups', {
  key: bigint('key', { mode: 'number' }).primaryKey(),
  probes: integer('probes').notNull(),
  failures: integer('failures').notNull(),
  latency: text('latency').notNull(),
});

export type NodeRollupRow = typeof nodeRollups.$inferSelect;

/**
 * Per node and minute, for the last six hours: probe count, failures and a sparse latency histogram, in a
 * ring of slots per node and region (db/rollup-key.ts). `minute` says which minute a slot holds; a write for
 * a newer minute resets the slot, so the table never grows past 360 rows a node and region.
 */
export const nodeMinuteRollups = pgTable('node_minute_rollups', {
  key: bigint('key', { mode: 'number' }).primaryKey(),
  minute: integer('minute').notNull(),
  probes: integer('probes').notNull(),
  failures: integer('failures').notNull(),
  latency: text('latency').notNull(),
});

export type NodeMinuteRollupRow = typeof nodeMinuteRollups.$inferSelect;

/**
 * A stdio MCP server the poller launches and probes. Written only by the config file (never the API):
 * env values are stored resolved, with the `${VAR}` templates they came from so export never writes them.
 */
export const stdioTargets = pgTable('stdio_targets', {
  id: text('id').primaryKey(),
  name: text('name').notNull().unique(),
  command: text('command').notNull(),
  args: jsonb('args').$type<string[]>().notNull(),
  env: jsonb('env').$type<Record<string, string>>().notNull(),
  envTemplates: jsonb('env_templates').$type<Record<string, string>>().notNull(),
  cwd: text('cwd').notNull(),
  allowLegacy: boolean('allow_legacy').notNull(),
  auditLegacy: boolean('audit_legacy').notNull(),
  legacyVersions: jsonb('legacy_versions').$type<string[]>().notNull(),
  intervalMs: integer('interval_ms').notNull(),
  timeoutMs: integer('timeout_ms').notNull(),
  legacyProbeTimeoutMs: integer('legacy_probe_timeout_ms').notNull(),
  /** The regions whose workers launch and probe it; empty: every region that has a worker. */
  regions: jsonb('regions')
    .$type<string[]>()
    .notNull()
    .default(sql`'[]'::jsonb`),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
});

export type StdioTargetRow = typeof stdioTargets.$inferSelect;

/**
 * The latest verdict of each probed subject from each region. `subject_id` is the node's or the target's
 * id; exactly one of `node_id`/`target_id` repeats it, so deleting either cascades. The row is rewritten
 * only when the verdict changes beyond its timings; what every probe updates is in subject_ticks.
 */
export const subjectStates = pgTable(
  'subject_states',
  {
    subjectId: text('subject_id').notNull(),
    region: text('region').notNull().default('default'),
    kind: text('kind').$type<SubjectKind>().notNull(),
    nodeId: text('node_id').references(() => nodes.id, { onDelete: 'cascade' }),
    targetId: text('target_id').references(() => stdioTargets.id, { onDelete: 'cascade' }),
    verdict: jsonb('verdict').$type<Verdict>().notNull(),
    /** Digest of the verdict without its timings: an unchanged verdict leaves this row alone. */
    verdictDigest: text('verdict_digest'),
    /** The fingerprint key, or `unavailable` while the subject does not answer usefully. */
    fingerprintKey: text('fingerprint_key').notNull(),
    /** The last available fingerprint key, kept across outages to tell a real change from a recovery. */
    lastAvailableKey: text('last_available_key'),
    clientEra: text('client_era').notNull(),
    reason: text('reason').notNull(),
    /** Since the fingerprint last changed. */
    fingerprintSince: bigint('fingerprint_since', { mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.subjectId, t.region] }),
    // The foreign keys' own indexes: without them every node or target delete scans the table.
    index('subject_states_node').on(t.nodeId),
    index('subject_states_target').on(t.targetId),
  ],
);

export type SubjectStateRow = typeof subjectStates.$inferSelect;

/**
 * What every probe of a subject updates, in a narrow row beside its verdict: the latest probe time and
 * duration and the counters of the current fingerprint span. No column here is indexed beyond the key, so
 * on PostgreSQL an update stays HOT (heap-only) in the room the fillfactor leaves.
 */
export const subjectTicks = pgTable(
  'subject_ticks',
  {
    subjectId: text('subject_id').notNull(),
    region: text('region').notNull(),
    probedAt: bigint('probed_at', { mode: 'number' }).notNull(),
    durationMs: integer('duration_ms').notNull(),
    probes: integer('probes').notNull(),
    failures: integer('failures').notNull(),
    consecutiveFailures: integer('consecutive_failures').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.subjectId, t.region] }),
    foreignKey({
      columns: [t.subjectId, t.region],
      foreignColumns: [subjectStates.subjectId, subjectStates.region],
    }).onDelete('cascade'),
  ],
);

export type SubjectTickRow = typeof subjectTicks.$inferSelect;

/**
 * One row per fingerprint span of a subject in a region: written when the fingerprint changes, closed
 * (endedAt, counters) when it changes again. A quiet subject writes nothing here.
 */
export const subjectHistory = pgTable(
  'subject_history',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    subjectId: text('subject_id').notNull(),
    region: text('region').notNull().default('default'),
    kind: text('kind').$type<SubjectKind>().notNull(),
    nodeId: text('node_id').references(() => nodes.id, { onDelete: 'cascade' }),
    targetId: text('target_id').references(() => stdioTargets.id, { onDelete: 'cascade' }),
    fingerprintKey: text('fingerprint_key').notNull(),
    clientEra: text('client_era').notNull(),
    reason: text('reason').notNull(),
    negotiatedVersion: text('negotiated_version'),
    servedEras: text('served_eras').notNull(),
    /** An available fingerprint that differs from the last available one (what flapping counts). */
    isChange: boolean('is_change').notNull().default(false),
    startedAt: bigint('started_at', { mode: 'number' }).notNull(),
    endedAt: bigint('ended_at', { mode: 'number' }),
    /** Probes and failures inside the span, set when the span closes. */
    probes: integer('probes'),
    failures: integer('failures'),
  },
  (t) => [
    index('subject_history_subject_started').on(t.subjectId, t.region, t.startedAt),
    // Only fingerprint changes, which the flap window reads every cycle for each node: a small index to seek.
    index('subject_history_changes')
      .on(t.subjectId, t.region, t.startedAt)
      .where(sql`${t.isChange}`),
    index('subject_history_node').on(t.nodeId),
    index('subject_history_target').on(t.targetId),
  ],
);

export type SubjectHistoryRow = typeof subjectHistory.$inferSelect;

/**
 * Each alert an alert sink knows of, firing or recently resolved. Every push sends the sink's whole set, so an
 * Alertmanager that lost its state, or missed a resolve, catches up on the next push.
 */
export const sinkAlerts = pgTable(
  'sink_alerts',
  {
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    /** Stable hash of the label set: one alert in Alertmanager's eyes. */
    fingerprint: text('fingerprint').notNull(),
    balancerId: text('balancer_id').notNull(),
    alertname: text('alertname').notNull(),
    labels: jsonb('labels').$type<Record<string, string>>().notNull(),
    annotations: jsonb('annotations').$type<Record<string, string>>().notNull(),
    generatorUrl: text('generator_url').notNull(),
    startsAt: bigint('starts_at', { mode: 'number' }).notNull(),
    /** Set when the condition cleared. */
    endsAt: bigint('ends_at', { mode: 'number' }),
    updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.endpointId, t.fingerprint] }), index('sink_alerts_ends').on(t.endsAt)],
);

export type SinkAlertRow = typeof sinkAlerts.$inferSelect;

/**
 * Readiness heartbeats: each check writes a fresh row (with a page-sized pad, so a store that cannot grow
 * fails it) and deletes the older ones, so the table stays one row per process.
 */
export const storeHeartbeats = pgTable('store_heartbeats', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  holder: text('holder').notNull(),
  at: bigint('at', { mode: 'number' }).notNull(),
  pad: bytea('pad').notNull(),
});

/**
 * Dashboard sessions ended by a logout, until their cookie would have expired anyway: every web process
 * checks a session cookie against this table, so a logout ends that session everywhere at once.
 */
export const revokedSessions = pgTable('revoked_sessions', {
  sid: text('sid').primaryKey(),
  expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
});

/**
 * Every dashboard session issued (the admin secret’s login or a single sign-on), until its cookie expires:
 * what an admin lists and ends. A session is live while it has not expired and revoked_sessions does not
 * hold its id; the cookie, not this row, is what a request presents.
 */
export const dashboardSessions = pgTable(
  'dashboard_sessions',
  {
    sid: text('sid').primaryKey(),
    issuedAt: bigint('issued_at', { mode: 'number' }).notNull(),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
    /** `sso` (OpenID Connect sign-in) or `admin_secret` (the break-glass login). */
    issuedVia: text('issued_via', { enum: SESSION_ISSUERS }).notNull(),
    role: text('role', { enum: USER_ROLES }).notNull(),
    /** The signed-in user’s `sub`; null for the admin secret’s login. */
    userSub: text('user_sub'),
    userEmail: text('user_email'),
    userName: text('user_name'),
    /** The client address it was issued to (through the trusted-proxy rule). */
    address: text('address'),
  },
  (t) => [index('dashboard_sessions_expires').on(t.expiresAt)],
);

export type DashboardSessionRow = typeof dashboardSessions.$inferSelect;

/**
 * Cumulative metric series shared by every process on this store: whichever process probes adds its deltas,
 * and /metrics on any web process renders them. `labels` is the canonical `k="v",…` text of the series.
 */
export const metricSeries = pgTable(
  'metric_series',
  {
    name: text('name').notNull(),
    labels: text('labels').notNull(),
    value: doublePrecision('value').notNull(),
  },
  (t) => [primaryKey({ columns: [t.name, t.labels] })],
);

export type MetricSeriesRow = typeof metricSeries.$inferSelect;

/**
 * Named claims of periodic jobs (the maintain role's retention run): a job that runs once per period
 * whichever process runs it takes its claim for the period first. subject_id is the job's name.
 */
export const subjectClaims = pgTable('subject_claims', {
  subjectId: text('subject_id').primaryKey(),
  holder: text('holder').notNull(),
  expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
});

/**
 * The audit trail: one row per write, recorded in the write’s own transaction. Who (a user, a token, the
 * admin secret, the config file at start-up, local mode), from which client address, what (the operation,
 * the subject, the changed fields’ before and after with secrets redacted) and when.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: text('id').primaryKey(),
    at: bigint('at', { mode: 'number' }).notNull(),
    actorKind: text('actor_kind', { enum: ['user', 'token', 'admin_secret', 'config', 'local'] }).notNull(),
    /** The user’s `sub` or the token’s id; null for the admin secret, the config file and local mode. */
    actorId: text('actor_id'),
    actorName: text('actor_name'),
    address: text('address'),
    operation: text('operation').notNull(),
    subjectType: text('subject_type').notNull(),
    subjectId: text('subject_id').notNull(),
    subjectName: text('subject_name'),
    /** JSON: `{ field: { before, after } }`, secrets as `[redacted]`. */
    changes: text('changes').notNull(),
  },
  (t) => [
    index('audit_log_at').on(t.at, t.id),
    index('audit_log_subject').on(t.subjectId, t.at),
    index('audit_log_actor').on(t.actorId, t.at),
  ],
);

export type AuditRow = typeof auditLog.$inferSelect;
