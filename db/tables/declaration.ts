// The one declaration of every table: names, columns, keys and indexes, in logical types. Both engines' drizzle
// tables are rendered from it (db/tables/dialects.ts) into db/schema/tables.ts and db/schema-pg/tables.ts by
// `npm run db:generate`, which then has drizzle-kit write both migration trees. Adding a column is one edit here
// plus the two generated migrations; tests/unit/db/tables.test.ts checks the rendered files and both engines'
// tables against this declaration.

/**
 * A column's logical type, and what each engine makes of it:
 * - `text`: TEXT on both;
 * - `int`: a 32-bit integer (INTEGER / integer);
 * - `big`: a 64-bit integer, epoch milliseconds and counters that outgrow 32 bits (INTEGER / bigint);
 * - `bool`: INTEGER 0/1 / boolean;
 * - `json`: TEXT holding JSON / jsonb;
 * - `real`: an 8-byte float (REAL / double precision);
 * - `bytes`: BLOB / bytea;
 * - `serial`: the table's own increasing id (INTEGER PRIMARY KEY AUTOINCREMENT / bigint identity).
 */
export type ColumnKind = 'text' | 'int' | 'big' | 'bool' | 'json' | 'real' | 'bytes' | 'serial';

export interface ColumnDecl {
  /** The SQL name. */
  name: string;
  kind: ColumnKind;
  notNull?: boolean;
  primaryKey?: boolean;
  unique?: boolean;
  /** A literal default, or an SQL expression per engine. */
  default?: string | number | boolean | { sql: { sqlite: string; pg: string } };
  /** The TypeScript type of the value (`$type<…>()`), as source text. */
  type?: string;
  /** A `text` column's allowed values: the name of an exported `as const` array, or literal values. */
  enum?: string | readonly string[];
  /** A foreign key: `table.column` by their TypeScript names, deleted with the row it points at. */
  references?: { table: string; column: string; onDelete: 'cascade' };
  doc?: string;
}

export interface IndexDecl {
  name: string;
  columns: readonly string[];
  unique?: boolean;
  /** A partial index over the rows where this boolean column is true. */
  whereTrue?: string;
  doc?: string;
}

/** A foreign key over several columns, to another table's key, by TypeScript names. */
export interface ForeignKeyDecl {
  columns: readonly string[];
  table: string;
  foreignColumns: readonly string[];
  onDelete: 'cascade';
}

export interface TableDecl {
  /** The SQL name. */
  name: string;
  doc?: string;
  columns: Record<string, ColumnDecl>;
  /** A composite primary key, by the columns' TypeScript names. */
  primaryKey?: readonly string[];
  indexes?: readonly IndexDecl[];
  foreignKeys?: readonly ForeignKeyDecl[];
  /** PostgreSQL: the share of each heap page filled by inserts, leaving room for HOT updates of rows rewritten in
   *  place (set by the migration that creates or alters the table; tests/integration/db checks it). */
  pgFillfactor?: number;
  /** The exported `$inferSelect` type, if any. */
  rowType?: string;
}

/** Where the names a declaration uses (`type`, `enum`) come from: module → names (`type X` for types). */
export const IMPORTS: Record<string, readonly string[]> = {
  '../../lib/probe/types': ['type Verdict'],
  '../../lib/rollout/types': ['type RolloutTarget'],
  '../../lib/schemas/balancer': ['type OAuthClientCredentialsInput'],
  '../../lib/schemas/session': ['USER_ROLES', 'SESSION_ISSUERS'],
  '../../lib/schemas/token': ['TOKEN_SCOPES'],
  '../../lib/schemas/webhook': ['DELIVERY_STATUSES'],
  '../tables/types': ['NODE_ORIGINS', 'ENDPOINT_KINDS', 'type AlertmanagerSettings', 'type SubjectKind'],
};

const text = (name: string, more: Omit<ColumnDecl, 'name' | 'kind'> = {}): ColumnDecl => ({
  name,
  kind: 'text',
  ...more,
});
const int = (name: string, more: Omit<ColumnDecl, 'name' | 'kind'> = {}): ColumnDecl => ({
  name,
  kind: 'int',
  ...more,
});
const big = (name: string, more: Omit<ColumnDecl, 'name' | 'kind'> = {}): ColumnDecl => ({
  name,
  kind: 'big',
  ...more,
});
const bool = (name: string, more: Omit<ColumnDecl, 'name' | 'kind'> = {}): ColumnDecl => ({
  name,
  kind: 'bool',
  ...more,
});
const json = (
  name: string,
  type: string,
  more: Omit<ColumnDecl, 'name' | 'kind' | 'type'> = {},
): ColumnDecl => ({
  name,
  kind: 'json',
  type,
  ...more,
});
const serial = (name: string, doc?: string): ColumnDecl => ({
  name,
  kind: 'serial',
  primaryKey: true,
  ...(doc ? { doc } : {}),
});
const nn = { notNull: true } as const;
const cascade = (table: string, column = 'id') => ({ table, column, onDelete: 'cascade' as const });
const emptyJsonArray = { sql: { sqlite: `'[]'`, pg: `'[]'::jsonb` } };

/** Every table, in the order the rendered files declare them (a foreign key's table before the key). */
export const TABLES = {
  balancers: {
    name: 'balancers',
    doc: 'One registered balancer: every field of the registration contract, stored as given.',
    rowType: 'BalancerRow',
    columns: {
      id: text('id', { primaryKey: true }),
      name: text('name', { ...nn, unique: true }),
      publicUrl: text('public_url', nn),
      nodeUrls: json('node_urls', 'string[]', nn),
      nodeNames: json('node_names', 'Record<string, string>', {
        ...nn,
        default: { sql: { sqlite: `'{}'`, pg: `'{}'::jsonb` } },
        doc: 'Names configured for listed node URLs, by URL.',
      }),
      resolveDns: bool('resolve_dns', nn),
      samplesPerCycle: int('samples_per_cycle', nn),
      intervalMs: int('interval_ms', nn),
      timeoutMs: int('timeout_ms', nn),
      legacyProbeTimeoutMs: int('legacy_probe_timeout_ms', nn),
      allowLegacy: bool('allow_legacy', nn),
      auditLegacy: bool('audit_legacy', nn),
      legacyVersions: json('legacy_versions', 'string[]', nn),
      headers: json('headers', 'Record<string, string>', {
        ...nn,
        doc: 'Values as given: `env:NAME` stays a reference and is resolved at probe time.',
      }),
      attributionHeader: text('attribution_header'),
      catalog: bool('catalog', { ...nn, default: true }),
      catalogEvery: int('catalog_every', { ...nn, default: 5 }),
      auth: json('auth', 'OAuthClientCredentialsInput', {
        doc: 'OAuth client credentials; a literal clientSecret is stored as given, `env:NAME` stays a reference.',
      }),
      regions: json('regions', 'string[]', {
        ...nn,
        default: emptyJsonArray,
        doc: 'The regions whose workers must probe it; empty: every region that has a worker.',
      }),
      tlsCa: text('tls_ca', {
        doc: 'The CA bundle its HTTPS nodes are verified with, as given: PEM, `file:PATH` or `env:NAME` (read at probe time); null: the system roots.',
      }),
      createdAt: big('created_at', nn),
      updatedAt: big('updated_at', nn),
    },
  },
  nodes: {
    name: 'nodes',
    rowType: 'NodeRow',
    pgFillfactor: 80,
    columns: {
      id: text('id', { primaryKey: true }),
      balancerId: text('balancer_id', { ...nn, references: cascade('balancers') }),
      key: text('key', {
        ...nn,
        doc: 'Stable identity within the balancer: `listed:<url>`, `dns:<address>`, `sample:<servedBy>`.',
      }),
      seq: int('seq', { doc: 'A small integer per node (1, 2, …), the node half of the rollup key.' }),
      origin: text('origin', { ...nn, enum: 'NODE_ORIGINS' }),
      url: text('url', nn),
      address: text('address'),
      servedBy: text('served_by'),
      name: text('name', {
        doc: 'The display name: as configured for a listed node, else the attribution (x-served-by-style) value, else the reverse-DNS name for a DNS node; null: none known.',
      }),
      createdAt: big('created_at', nn),
      lastSeenAt: big('last_seen_at', nn),
    },
    indexes: [
      { name: 'nodes_balancer_key', columns: ['balancerId', 'key'], unique: true },
      { name: 'nodes_balancer', columns: ['balancerId'] },
      { name: 'nodes_seq', columns: ['seq'], unique: true },
    ],
  },
  events: {
    name: 'events',
    rowType: 'EventRow',
    columns: {
      seq: serial('seq', 'Insertion order; the cursor of listEvents.'),
      id: text('id', { ...nn, unique: true }),
      balancerId: text('balancer_id', { ...nn, references: cascade('balancers') }),
      nodeId: text('node_id'),
      type: text('type', nn),
      at: big('at', nn),
      data: json('data', 'Record<string, unknown>', nn),
    },
    indexes: [
      { name: 'events_balancer_at', columns: ['balancerId', 'at'] },
      { name: 'events_type_at', columns: ['type', 'at'] },
      { name: 'events_at', columns: ['at'] },
    ],
  },
  rolloutWindows: {
    name: 'rollout_windows',
    doc: 'A declared rollout: non-uniform is expected until the deadline, then `rollout.stuck`.',
    rowType: 'RolloutWindowRow',
    columns: {
      id: text('id', { primaryKey: true }),
      balancerId: text('balancer_id', { ...nn, references: cascade('balancers') }),
      target: json('target', 'RolloutTarget', {
        ...nn,
        doc: 'What the nodes are moving to (era, version, served set or fingerprint key), as JSON.',
      }),
      deadline: big('deadline', nn),
      openedAt: big('opened_at', nn),
      closedAt: big('closed_at'),
    },
    indexes: [{ name: 'rollout_windows_balancer', columns: ['balancerId', 'closedAt'] }],
  },
  balancerStates: {
    name: 'balancer_states',
    doc: 'The latest analysis of each balancer and the snapshot the next cycle diffs against.',
    rowType: 'BalancerStateRow',
    pgFillfactor: 50,
    columns: {
      balancerId: text('balancer_id', { primaryKey: true, references: cascade('balancers') }),
      status: text('status', {
        ...nn,
        doc: 'Headline summary columns, so listing balancers does not parse the analysis JSON.',
      }),
      severity: text('severity'),
      displayStatus: text('display_status', {
        ...nn,
        default: 'unknown',
        doc: 'The one status the UI shows (stuck, rolling, era-split, drift, down, flapping, degraded, uniform, unknown).',
      }),
      degraded: bool('degraded', nn),
      analysis: json('analysis', 'unknown', nn),
      snapshot: json('snapshot', 'unknown', nn),
      analysisDigest: text('analysis_digest', {
        doc:
          'What the analysis and snapshot say, without their time and cycle count (analysisDigest in\n' +
          'db/subject-state.ts): a cycle that finds the same writes only `analyzed_at` and `cycles`.',
      }),
      analyzedAt: big('analyzed_at', nn),
      cycles: int('cycles', nn),
    },
  },
  balancerRegionStates: {
    name: 'balancer_region_states',
    doc:
      "Each region's own latest analysis of a balancer and the snapshot its next cycle diffs against. The\n" +
      'cross-region analysis (balancer_states) is combined from these rows, one per region that probes it.',
    rowType: 'BalancerRegionStateRow',
    pgFillfactor: 50,
    columns: {
      balancerId: text('balancer_id', { ...nn, references: cascade('balancers') }),
      region: text('region', nn),
      analysis: json('analysis', 'unknown', nn),
      snapshot: json('snapshot', 'unknown', nn),
      analysisDigest: text('analysis_digest', {
        doc: 'As in balancer_states: a cycle that finds the same writes only `analyzed_at` and `cycles`.',
      }),
      analyzedAt: big('analyzed_at', nn),
      cycles: int('cycles', {
        ...nn,
        default: 0,
        doc: "The region's cycles so far (the snapshot's `cycle`).",
      }),
    },
    primaryKey: ['balancerId', 'region'],
  },
  regions: {
    name: 'regions',
    doc:
      'The regions that ever probed into this store, each with a small integer id (0 is `default`). The id is\n' +
      'the region part of the rollup key (db/rollup-key.ts), so a rollup row stays one integer key. Ids are\n' +
      'handed out by the store, not a sequence.',
    rowType: 'RegionRow',
    columns: {
      id: int('id', { primaryKey: true }),
      name: text('name', { ...nn, unique: true }),
    },
  },
  pollUnits: {
    name: 'poll_units',
    doc:
      'One row per unit of poll work: a balancer or stdio target in one region. A worker claims a due unit by\n' +
      "taking an expired lease on its row, bumping `token`; every write of the unit's cycle checks that token.\n" +
      'A released row keeps its last holder (for readiness) with `expires_at` 0.',
    rowType: 'PollUnitRow',
    columns: {
      kind: text('kind', { ...nn, enum: ['balancer', 'stdio'] }),
      unitId: text('unit_id', nn),
      region: text('region', nn),
      holder: text('holder'),
      pid: int('pid'),
      hostname: text('hostname'),
      token: big('token', {
        ...nn,
        default: 0,
        doc: "Fencing token: incremented on every claim, so a paused holder's writes are refused.",
      }),
      expiresAt: big('expires_at', { ...nn, default: 0 }),
      dueAt: big('due_at', nn),
      lastCycleAt: big('last_cycle_at'),
      requestedSeq: big('requested_seq', {
        ...nn,
        default: 0,
        doc: 'Cycles asked for (probe-now, the fresh gate): each ask bumps it and makes the unit due now.',
      }),
      answeredSeq: big('answered_seq', {
        ...nn,
        default: 0,
        doc: 'The asks a finished cycle attempted: those seen when its holder claimed the unit.',
      }),
      storedSeq: big('stored_seq', {
        ...nn,
        default: 0,
        doc: "The asks whose cycle stored its results, set in that cycle's fenced write.",
      }),
      lastCycleProbes: int('last_cycle_probes', {
        ...nn,
        default: 0,
        doc: 'Probes the last cycle that stored made (what a probe-now answers with).',
      }),
    },
    primaryKey: ['kind', 'unitId', 'region'],
    indexes: [{ name: 'poll_units_due_idx', columns: ['region', 'dueAt'] }],
  },
  pollWorkers: {
    name: 'poll_workers',
    doc: 'One row per running poll role: which workers poll, in which region, and when they last renewed.',
    rowType: 'PollWorkerRow',
    columns: {
      holder: text('holder', { primaryKey: true }),
      region: text('region', nn),
      pid: int('pid', nn),
      hostname: text('hostname', nn),
      startedAt: big('started_at', nn),
      expiresAt: big('expires_at', nn),
      unitsHeld: int('units_held', { ...nn, default: 0 }),
      lastCycleAt: big('last_cycle_at'),
    },
  },
  apiTokens: {
    name: 'api_tokens',
    doc: 'API tokens: only a SHA-256 of the secret is kept; the plain value is shown once, at creation.',
    rowType: 'ApiTokenRow',
    columns: {
      id: text('id', { primaryKey: true }),
      name: text('name', nn),
      scope: text('scope', { ...nn, enum: 'TOKEN_SCOPES' }),
      prefix: text('prefix', {
        ...nn,
        doc: 'The first characters of the token, so an operator can tell tokens apart without the secret.',
      }),
      hash: text('hash', { ...nn, unique: true }),
      createdAt: big('created_at', nn),
      lastUsedAt: big('last_used_at'),
      createdBy: text('created_by', {
        doc: 'Who minted it: `user:<sub>`, `admin` (the admin secret or its session), `local`; null before tokens had owners.',
      }),
      createdByName: text('created_by_name', {
        doc: 'Their name as shown when it was minted (the user’s email or name).',
      }),
      revokedAt: big('revoked_at'),
      expiresAt: big('expires_at', {
        doc: 'When it stops working (epoch ms); null: it does not expire. An expired token is refused.',
      }),
    },
    indexes: [
      { name: 'api_tokens_created', columns: ['createdAt'] },
      { name: 'api_tokens_created_by', columns: ['createdBy'] },
    ],
  },
  webhookEndpoints: {
    name: 'webhook_endpoints',
    doc: 'A webhook endpoint. Signing secrets are needed in clear to sign, so they are stored but never returned.',
    rowType: 'WebhookEndpointRow',
    columns: {
      id: text('id', { primaryKey: true }),
      kind: text('kind', { ...nn, enum: 'ENDPOINT_KINDS', default: 'webhook' }),
      name: text('name', { ...nn, unique: true }),
      url: text('url', nn),
      alertmanager: json('alertmanager', 'AlertmanagerSettings'),
      description: text('description', nn),
      eventTypes: json('event_types', 'string[]', {
        ...nn,
        doc: 'Event types delivered; empty means every type.',
      }),
      balancerIds: json('balancer_ids', 'string[]', {
        ...nn,
        doc: 'Only events of these balancers; empty means every balancer.',
      }),
      secret: text('secret', nn),
      previousSecret: text('previous_secret', {
        doc: 'The secret before the last rotation, still signed with until `previousSecretUntil`.',
      }),
      previousSecretUntil: big('previous_secret_until'),
      enabled: bool('enabled', nn),
      disabledReason: text('disabled_reason'),
      disabledAt: big('disabled_at'),
      failingSince: big('failing_since', {
        doc: 'When the current run of failed attempts began; null while the endpoint is healthy.',
      }),
      createdAt: big('created_at', nn),
      updatedAt: big('updated_at', nn),
    },
  },
  webhookDeliveries: {
    name: 'webhook_deliveries',
    doc: "The outbox: one row per (event, endpoint), written in the event's transaction, then delivered and retried.",
    rowType: 'WebhookDeliveryRow',
    columns: {
      id: text('id', { primaryKey: true }),
      endpointId: text('endpoint_id', { ...nn, references: cascade('webhookEndpoints') }),
      eventId: text('event_id'),
      balancerId: text('balancer_id'),
      type: text('type', nn),
      payload: text('payload', {
        ...nn,
        doc: 'The exact body sent, so every attempt and a redelivery carry the same bytes and webhook-id.',
      }),
      status: text('status', { ...nn, enum: 'DELIVERY_STATUSES' }),
      rolloutWindowId: text('rollout_window_id', { doc: 'Set on alerts held by an open rollout window.' }),
      attempts: int('attempts', nn),
      nextAttemptAt: big('next_attempt_at'),
      lastAttemptAt: big('last_attempt_at'),
      lastHttpStatus: int('last_http_status'),
      lastError: text('last_error'),
      createdAt: big('created_at', nn),
      completedAt: big('completed_at'),
    },
    indexes: [
      { name: 'webhook_deliveries_due', columns: ['status', 'nextAttemptAt'] },
      { name: 'webhook_deliveries_endpoint', columns: ['endpointId', 'createdAt'] },
    ],
  },
  webhookAttempts: {
    name: 'webhook_attempts',
    doc: 'Every attempt of every delivery: the per-endpoint delivery log.',
    rowType: 'WebhookAttemptRow',
    columns: {
      id: serial('id'),
      deliveryId: text('delivery_id', { ...nn, references: cascade('webhookDeliveries') }),
      endpointId: text('endpoint_id', nn),
      at: big('at', nn),
      httpStatus: int('http_status'),
      outcome: text('outcome', {
        ...nn,
        doc: 'ok | http_3xx | http_4xx | http_5xx | gone | timeout | reset | refused | egress_refused | network_error',
      }),
      error: text('error'),
      durationMs: int('duration_ms', nn),
    },
    indexes: [{ name: 'webhook_attempts_delivery', columns: ['deliveryId', 'at'] }],
  },
  nodeRollups: {
    name: 'node_rollups',
    doc:
      'Per node and hour: probe count, failures and a sparse latency histogram. The key packs hour and node\n' +
      'into the rowid (hour × 2^24 + node seq, 64 bits), so the table is one B-tree with no second index: a\n' +
      "quiet fleet's new hour costs a few dozen bytes a node, the current hour's rows sit together (cheap\n" +
      'updates), and pruning is one range delete. See db/rollup-key.ts.',
    rowType: 'NodeRollupRow',
    pgFillfactor: 70,
    columns: {
      key: big('key', { primaryKey: true }),
      probes: int('probes', nn),
      failures: int('failures', nn),
      latency: text('latency', nn),
    },
  },
  nodeMinuteRollups: {
    name: 'node_minute_rollups',
    doc:
      'Per node and minute, for the last six hours: probe count, failures and a sparse latency histogram, in a\n' +
      'ring of slots per node and region (db/rollup-key.ts). `minute` says which minute a slot holds; a write for\n' +
      'a newer minute resets the slot, so the table never grows past 360 rows a node and region.',
    rowType: 'NodeMinuteRollupRow',
    pgFillfactor: 70,
    columns: {
      key: big('key', { primaryKey: true }),
      minute: int('minute', nn),
      probes: int('probes', nn),
      failures: int('failures', nn),
      latency: text('latency', nn),
    },
  },
  stdioTargets: {
    name: 'stdio_targets',
    doc:
      'A stdio MCP server the poller launches and probes. Written only by the config file (never the API):\n' +
      'env values are stored resolved, with the `${VAR}` templates they came from so export never writes them.',
    rowType: 'StdioTargetRow',
    columns: {
      id: text('id', { primaryKey: true }),
      name: text('name', { ...nn, unique: true }),
      command: text('command', nn),
      args: json('args', 'string[]', nn),
      env: json('env', 'Record<string, string>', nn),
      envTemplates: json('env_templates', 'Record<string, string>', nn),
      cwd: text('cwd', nn),
      allowLegacy: bool('allow_legacy', nn),
      auditLegacy: bool('audit_legacy', nn),
      legacyVersions: json('legacy_versions', 'string[]', nn),
      intervalMs: int('interval_ms', nn),
      timeoutMs: int('timeout_ms', nn),
      legacyProbeTimeoutMs: int('legacy_probe_timeout_ms', nn),
      regions: json('regions', 'string[]', {
        ...nn,
        default: emptyJsonArray,
        doc: 'The regions whose workers launch and probe it; empty: every region that has a worker.',
      }),
      createdAt: big('created_at', nn),
      updatedAt: big('updated_at', nn),
    },
  },
  subjectStates: {
    name: 'subject_states',
    doc:
      "The latest verdict of each probed subject from each region. `subject_id` is the node's or the target's\n" +
      'id; exactly one of `node_id`/`target_id` repeats it, so deleting either cascades. The row is rewritten\n' +
      'only when the verdict changes beyond its timings; what every probe updates is in subject_ticks.',
    rowType: 'SubjectStateRow',
    pgFillfactor: 90,
    columns: {
      subjectId: text('subject_id', nn),
      region: text('region', { ...nn, default: 'default' }),
      kind: text('kind', { ...nn, type: 'SubjectKind' }),
      nodeId: text('node_id', { references: cascade('nodes') }),
      targetId: text('target_id', { references: cascade('stdioTargets') }),
      verdict: json('verdict', 'Verdict', nn),
      verdictDigest: text('verdict_digest', {
        doc: 'Digest of the verdict without its timings: an unchanged verdict leaves this row alone.',
      }),
      fingerprintKey: text('fingerprint_key', {
        ...nn,
        doc: 'The fingerprint key, or `unavailable` while the subject does not answer usefully.',
      }),
      lastAvailableKey: text('last_available_key', {
        doc: 'The last available fingerprint key, kept across outages to tell a real change from a recovery.',
      }),
      clientEra: text('client_era', nn),
      reason: text('reason', nn),
      fingerprintSince: big('fingerprint_since', { ...nn, doc: 'Since the fingerprint last changed.' }),
    },
    primaryKey: ['subjectId', 'region'],
    indexes: [
      {
        name: 'subject_states_node',
        columns: ['nodeId'],
        doc: "The foreign keys' own indexes: without them every node or target delete scans the table.",
      },
      { name: 'subject_states_target', columns: ['targetId'] },
    ],
  },
  subjectTicks: {
    name: 'subject_ticks',
    doc:
      'What every probe of a subject updates, in a narrow row beside its verdict: the latest probe time and\n' +
      'duration and the counters of the current fingerprint span. No column here is indexed beyond the key, so\n' +
      'on PostgreSQL an update stays HOT (heap-only) in the room the fillfactor leaves.',
    rowType: 'SubjectTickRow',
    pgFillfactor: 50,
    columns: {
      subjectId: text('subject_id', nn),
      region: text('region', nn),
      probedAt: big('probed_at', nn),
      durationMs: int('duration_ms', nn),
      probes: int('probes', nn),
      failures: int('failures', nn),
      consecutiveFailures: int('consecutive_failures', nn),
    },
    primaryKey: ['subjectId', 'region'],
    foreignKeys: [
      {
        columns: ['subjectId', 'region'],
        table: 'subjectStates',
        foreignColumns: ['subjectId', 'region'],
        onDelete: 'cascade',
      },
    ],
  },
  subjectHistory: {
    name: 'subject_history',
    doc:
      'One row per fingerprint span of a subject in a region: written when the fingerprint changes, closed\n' +
      '(endedAt, counters) when it changes again. A quiet subject writes nothing here.',
    rowType: 'SubjectHistoryRow',
    columns: {
      id: serial('id'),
      subjectId: text('subject_id', nn),
      region: text('region', { ...nn, default: 'default' }),
      kind: text('kind', { ...nn, type: 'SubjectKind' }),
      nodeId: text('node_id', { references: cascade('nodes') }),
      targetId: text('target_id', { references: cascade('stdioTargets') }),
      fingerprintKey: text('fingerprint_key', nn),
      clientEra: text('client_era', nn),
      reason: text('reason', nn),
      negotiatedVersion: text('negotiated_version'),
      servedEras: text('served_eras', nn),
      isChange: bool('is_change', {
        ...nn,
        default: false,
        doc: 'An available fingerprint that differs from the last available one (what flapping counts).',
      }),
      startedAt: big('started_at', nn),
      endedAt: big('ended_at'),
      probes: int('probes', { doc: 'Probes and failures inside the span, set when the span closes.' }),
      failures: int('failures'),
    },
    indexes: [
      { name: 'subject_history_subject_started', columns: ['subjectId', 'region', 'startedAt'] },
      {
        name: 'subject_history_changes',
        columns: ['subjectId', 'region', 'startedAt'],
        whereTrue: 'isChange',
        doc: 'Only fingerprint changes, which the flap window reads every cycle for each node: a small index to seek.',
      },
      { name: 'subject_history_node', columns: ['nodeId'] },
      { name: 'subject_history_target', columns: ['targetId'] },
    ],
  },
  sinkAlerts: {
    name: 'sink_alerts',
    doc:
      "Each alert an alert sink knows of, firing or recently resolved. Every push sends the sink's whole set, so an\n" +
      'Alertmanager that lost its state, or missed a resolve, catches up on the next push.',
    rowType: 'SinkAlertRow',
    columns: {
      endpointId: text('endpoint_id', { ...nn, references: cascade('webhookEndpoints') }),
      fingerprint: text('fingerprint', {
        ...nn,
        doc: "Stable hash of the label set: one alert in Alertmanager's eyes.",
      }),
      balancerId: text('balancer_id', nn),
      alertname: text('alertname', nn),
      labels: json('labels', 'Record<string, string>', nn),
      annotations: json('annotations', 'Record<string, string>', nn),
      generatorUrl: text('generator_url', nn),
      startsAt: big('starts_at', nn),
      endsAt: big('ends_at', { doc: 'Set when the condition cleared.' }),
      updatedAt: big('updated_at', nn),
    },
    primaryKey: ['endpointId', 'fingerprint'],
    indexes: [{ name: 'sink_alerts_ends', columns: ['endsAt'] }],
  },
  storeHeartbeats: {
    name: 'store_heartbeats',
    doc:
      'Readiness heartbeats: each check writes a fresh row (with a page-sized pad, so a store that cannot grow\n' +
      'fails it) and deletes the older ones, so the table stays one row per process.',
    columns: {
      id: serial('id'),
      holder: text('holder', nn),
      at: big('at', nn),
      pad: { name: 'pad', kind: 'bytes', notNull: true },
    },
  },
  revokedSessions: {
    name: 'revoked_sessions',
    doc:
      'Dashboard sessions ended by a logout, until their cookie would have expired anyway: every web process\n' +
      'checks a session cookie against this table, so a logout ends that session everywhere at once.',
    columns: {
      sid: text('sid', { primaryKey: true }),
      expiresAt: big('expires_at', nn),
    },
  },
  dashboardSessions: {
    name: 'dashboard_sessions',
    doc:
      'Every dashboard session issued (the admin secret’s login or a single sign-on), until its cookie expires:\n' +
      'what an admin lists and ends. A session is live while it has not expired and revoked_sessions does not\n' +
      'hold its id; the cookie, not this row, is what a request presents.',
    rowType: 'DashboardSessionRow',
    columns: {
      sid: text('sid', { primaryKey: true }),
      issuedAt: big('issued_at', nn),
      expiresAt: big('expires_at', nn),
      issuedVia: text('issued_via', {
        ...nn,
        enum: 'SESSION_ISSUERS',
        doc: '`sso` (OpenID Connect sign-in) or `admin_secret` (the break-glass login).',
      }),
      role: text('role', { ...nn, enum: 'USER_ROLES' }),
      userSub: text('user_sub', { doc: 'The signed-in user’s `sub`; null for the admin secret’s login.' }),
      userEmail: text('user_email'),
      userName: text('user_name'),
      address: text('address', {
        doc: 'The client address it was issued to (through the trusted-proxy rule).',
      }),
    },
    indexes: [{ name: 'dashboard_sessions_expires', columns: ['expiresAt'] }],
  },
  metricSeries: {
    name: 'metric_series',
    doc:
      'Cumulative metric series shared by every process on this store: whichever process probes adds its deltas,\n' +
      'and /metrics on any web process renders them. `labels` is the canonical `k="v",…` text of the series.',
    rowType: 'MetricSeriesRow',
    columns: {
      name: text('name', nn),
      labels: text('labels', nn),
      value: { name: 'value', kind: 'real', notNull: true },
    },
    primaryKey: ['name', 'labels'],
  },
  subjectClaims: {
    name: 'subject_claims',
    doc:
      "Named claims of periodic jobs (the maintain role's retention run): a job that runs once per period\n" +
      "whichever process runs it takes its claim for the period first. subject_id is the job's name.",
    columns: {
      subjectId: text('subject_id', { primaryKey: true }),
      holder: text('holder', nn),
      expiresAt: big('expires_at', nn),
    },
  },
  auditLog: {
    name: 'audit_log',
    doc:
      'The audit trail: one row per write, recorded in the write’s own transaction. Who (a user, a token, the\n' +
      'admin secret, the config file at start-up, local mode), from which client address, what (the operation,\n' +
      'the subject, the changed fields’ before and after with secrets redacted) and when.',
    rowType: 'AuditRow',
    columns: {
      id: text('id', { primaryKey: true }),
      at: big('at', nn),
      actorKind: text('actor_kind', { ...nn, enum: ['user', 'token', 'admin_secret', 'config', 'local'] }),
      actorId: text('actor_id', {
        doc: 'The user’s `sub` or the token’s id; null for the admin secret, the config file and local mode.',
      }),
      actorName: text('actor_name'),
      address: text('address'),
      operation: text('operation', nn),
      subjectType: text('subject_type', nn),
      subjectId: text('subject_id', nn),
      subjectName: text('subject_name'),
      changes: text('changes', {
        ...nn,
        doc: 'JSON: `{ field: { before, after } }`, secrets as `[redacted]`.',
      }),
    },
    indexes: [
      { name: 'audit_log_at', columns: ['at', 'id'] },
      { name: 'audit_log_subject', columns: ['subjectId', 'at'] },
      { name: 'audit_log_actor', columns: ['actorId', 'at'] },
    ],
  },
} satisfies Record<string, TableDecl>;
