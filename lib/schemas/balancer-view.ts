// How the API shows balancers and nodes. Literal header values are secrets and never come back: they are
// replaced by REDACTED (sending REDACTED back in an update keeps the stored value); `env:NAME` references show.
import { z } from 'zod';
import { AVAILABILITIES, CLIENT_ERAS } from '@/lib/probe/types';
import { BalancerAnalysisView } from './balancer-analysis';
import { Event } from './event';
import { Verdict } from './verdict';
import { OAuthClientCredentialsInput } from './balancer';
import { Limit, Timestamp } from './common';

export const REDACTED = '[redacted]';

export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [k, v.startsWith('env:') ? v : REDACTED]),
  );
}

/** Puts stored values back where an update sent REDACTED for a header that exists. */
export function restoreRedacted(
  sent: Record<string, string>,
  stored: Record<string, string>,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(sent).map(([k, v]) => [k, v === REDACTED && k in stored ? (stored[k] ?? v) : v]),
  );
}

type OAuthSettings = OAuthClientCredentialsInput;

/** A literal client secret never comes back; `env:NAME` shows. */
export function redactAuth(auth: OAuthSettings | null): OAuthSettings | null {
  if (!auth) return null;
  return { ...auth, clientSecret: auth.clientSecret.startsWith('env:') ? auth.clientSecret : REDACTED };
}

/** An update that sends REDACTED as the secret keeps the stored one. */
export function restoreRedactedAuth(
  sent: OAuthSettings | null,
  stored: OAuthSettings | null,
): OAuthSettings | null {
  if (!sent || sent.clientSecret !== REDACTED || !stored) return sent;
  return { ...sent, clientSecret: stored.clientSecret };
}

export const BalancerView = z
  .object({
    id: z.string(),
    name: z.string(),
    publicUrl: z.string(),
    nodeUrls: z.array(z.string()),
    nodeNames: z
      .record(z.string(), z.string())
      .meta({ description: 'display names of listed nodes, by URL (only the named ones)' }),
    resolveDns: z.boolean(),
    samplesPerCycle: z.int(),
    intervalMs: z.int(),
    timeoutMs: z.int(),
    legacyProbeTimeoutMs: z.int(),
    allowLegacy: z.boolean(),
    auditLegacy: z.boolean(),
    legacyVersions: z.array(z.string()),
    headers: z.record(z.string(), z.string()).meta({ description: `literal values shown as ${REDACTED}` }),
    attributionHeader: z.string().nullable(),
    catalog: z.boolean(),
    catalogEvery: z.int(),
    regions: z.array(z.string()).nullable().meta({
      description: 'the regions whose workers must probe it; null: every region that has a worker',
    }),
    auth: OAuthClientCredentialsInput.nullable().meta({
      description: `OAuth client credentials; a literal clientSecret is shown as ${REDACTED}`,
    }),
    tlsCa: z.string().nullable().meta({
      description: 'the CA bundle its HTTPS nodes are verified with, as given (PEM, file:PATH or env:NAME)',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    summary: z
      .object({
        status: z.string(),
        severity: z.string().nullable(),
        displayStatus: z
          .string()
          .meta({ description: 'the single status the dashboard shows, e.g. era-split' }),
        degraded: z.boolean(),
        analyzedAt: Timestamp,
      })
      .nullable()
      .optional(),
  })
  .meta({ id: 'Balancer' });

/** A list page carries no node URL lists (up to 1,000 per balancer) and no headers: the item links to the full view. */
export const BalancerListItemView = BalancerView.omit({
  nodeUrls: true,
  nodeNames: true,
  headers: true,
  legacyVersions: true,
  auth: true,
  tlsCa: true,
})
  .extend({ nodeUrlCount: z.int().min(0) })
  .meta({ id: 'BalancerListItem' });

const NodeStateView = z.object({
  region: z
    .string()
    .optional()
    .meta({ description: 'the region whose worker probed it (absent for states stored before regions)' }),
  clientEra: z.enum(CLIENT_ERAS),
  reason: z.string(),
  availability: z
    .enum(AVAILABILITIES)
    .meta({ description: 'auth-gated: refused with 401/403 (or no token could be had); not down' }),
  fingerprintKey: z.string(),
  probedAt: Timestamp,
  durationMs: z.int(),
  fingerprintSince: Timestamp,
  probes: z.int(),
  failures: z.int(),
  consecutiveFailures: z.int(),
  verdict: Verdict.meta({ description: 'the full Verdict with its evidence steps' }),
});

export const NodeView = z
  .object({
    id: z.string(),
    balancerId: z.string(),
    key: z.string(),
    origin: z.enum(['listed', 'dns', 'sample']),
    url: z.string(),
    address: z.string().nullable(),
    servedBy: z.string().nullable(),
    name: z.string().nullable().meta({
      description:
        'the display name: as configured for a listed node, else the attribution header value on its answers (a sampled node its served-by value), else the reverse-DNS name of a DNS node; null: none known',
    }),
    createdAt: Timestamp,
    lastSeenAt: Timestamp,
    state: NodeStateView.nullable().meta({
      description: 'the latest verdict; across regions, the most recent one of any region',
    }),
    regions: z
      .array(NodeStateView.extend({ region: z.string() }))
      .optional()
      .meta({ description: 'the latest verdict from each region that probed it, by region name' }),
  })
  .meta({ id: 'Node' });

export const NodeHistoryEntry = z
  .object({
    id: z.int(),
    nodeId: z.string(),
    region: z.string().optional().meta({ description: 'the region whose probes this span records' }),
    fingerprintKey: z.string(),
    clientEra: z.string(),
    reason: z.string(),
    negotiatedVersion: z.string().nullable(),
    servedEras: z.string(),
    isChange: z
      .boolean()
      .meta({ description: 'an available fingerprint that differs from the last available one (flapping)' }),
    startedAt: Timestamp,
    endedAt: Timestamp.nullable(),
    probes: z.int().nullable(),
    failures: z.int().nullable(),
  })
  .meta({ id: 'NodeHistoryEntry' });

/** A node's latest state, its full Verdict included. */
export type NodeState = NonNullable<z.output<typeof NodeView>['state']>;
export type NodeWithState = Omit<z.output<typeof NodeView>, 'state' | 'regions'> & {
  state: NodeState | null;
  regions?: Array<NodeState & { region: string }>;
};

/** How operators know a node: what the dashboard and alerts label it by. */
export type NodeIdentity = Pick<
  z.output<typeof NodeView>,
  'origin' | 'url' | 'servedBy' | 'address' | 'name'
>;

/** One hour of a node's probes, for its latency chart. */
export const RollupEntry = z
  .object({
    hourStart: Timestamp,
    probes: z.int(),
    failures: z.int(),
    p50Ms: z.number().nullable(),
    p95Ms: z.number().nullable(),
  })
  .meta({ id: 'Rollup' });

export const BalancerListQuery = z.object({
  limit: z.coerce
    .number()
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(500, 'must be at most 500')
    .default(50),
  cursor: z.string().max(400).optional(),
  q: z.string().max(100, 'must be at most 100 characters').optional(),
});

export const NodeHistoryQuery = z.object({ limit: Limit });

/** What "probe now" answers: the cycles its regions stored, the analysis after them and the events they raised. */
export const ProbeNowResult = z
  .object({
    balancerId: z.string(),
    at: Timestamp.meta({ description: 'when the last of the cycles stored its results' }),
    durationMs: z.int().meta({ description: 'how long the answer took, asking included' }),
    probes: z.int(),
    analysis: BalancerAnalysisView.nullable(),
    events: z.array(Event).meta({ description: "the balancer's events stored since the ask" }),
    regions: z.array(z.object({ region: z.string(), at: Timestamp.nullable(), probes: z.int() })),
  })
  .meta({ id: 'ProbeNowResult' });
