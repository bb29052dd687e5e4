// The balancer registration contract, shared by the store, the REST API, the config file and the UI.
// Client-safe: no database imports.
import { z } from 'zod';
import { DEFAULT_LEGACY_VERSIONS } from '@/lib/probe/types';
import { REGION_RULE, regionProblem } from '@/lib/rollout/regions';
import { CONTROL_CHARACTERS_ISSUE, deadlineFits, deadlineIssue, hasControlCharacters } from './common';

const httpUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
  .max(2048, 'must be at most 2048 characters')
  // A password in the URL would be stored and shown, and the probe refuses such URLs anyway.
  .refine(
    (v) => !/^[a-z]+:\/\/[^/?#]*@/i.test(v),
    'must not contain a user name or password; send credentials in `headers` instead, e.g. "Authorization": "env:NAME"',
  );

const revision = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a revision date like 2025-11-25');

const headerName = z
  .string()
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'must be a valid HTTP header name')
  .max(100);

/** A header value is stored as given; `env:NAME` is resolved from the environment at probe time. */
const headerValue = z
  .string()
  .max(4096)
  .refine((v) => !/[\r\n]/.test(v), 'must not contain line breaks')
  // Tab is allowed in a header value; line breaks have their own message above.
  .refine((v) => !hasControlCharacters(v, ['\t', '\r', '\n']), CONTROL_CHARACTERS_ISSUE);

/** OAuth 2.1 client credentials (RFC 6749 §4.4, RFC 8707 resource indicators) for a balancer's probes. */
export const OAuthClientCredentialsInput = z
  .strictObject({
    type: z.literal('oauth-client-credentials', { error: "must be 'oauth-client-credentials'" }),
    clientId: z
      .string()
      .trim()
      .min(1, 'is required')
      .max(256, 'must be at most 256 characters')
      .regex(/^[\x20-\x7e]+$/, 'must be printable ASCII'),
    clientSecret: headerValue
      .min(1, 'is required')
      .meta({ description: 'the secret, or env:NAME to read it from the environment at probe time' }),
    issuer: httpUrl.optional().meta({
      description:
        'the authorization server the credential belongs to; without tokenUrl its RFC 8414 metadata names the token endpoint and must name this issuer exactly; a protected resource must list it',
    }),
    tokenUrl: httpUrl.optional().meta({ description: "default: from the issuer's RFC 8414 metadata" }),
    scope: z
      .string()
      .trim()
      .min(1, 'must not be empty (leave it out for the default)')
      .max(1024, 'must be at most 1024 characters')
      .regex(
        /^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/,
        'must be space-separated scope tokens',
      )
      .optional()
      .meta({
        description:
          "default: the challenge's scope, else the protected resource's scopes_supported, else no scope parameter",
      }),
    resource: httpUrl
      .optional()
      .meta({ description: 'RFC 8707 resource indicator; default: the public URL' }),
  })
  .refine((a) => a.issuer !== undefined || a.tokenUrl !== undefined, {
    path: ['issuer'],
    message: 'is required unless tokenUrl is set: a credential is only sent to its own authorization server',
  })
  .meta({ id: 'OAuthClientCredentials' });
export type OAuthClientCredentialsInput = z.output<typeof OAuthClientCredentialsInput>;

export const BalancerName = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(100, 'must be at most 100 characters')
  .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/, 'may use letters, digits, spaces, dots, dashes and underscores');

export const RegionName = z
  .string({ error: 'must be a region name' })
  .superRefine((v, ctx) => {
    const problem = regionProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({ description: `a region name: ${REGION_RULE}` });

/** The regions a subject must be probed from, each named once; null: every region that has a worker. */
export const Regions = z
  .array(RegionName, { error: 'must be a list of region names, or null for every region that has a worker' })
  .min(1, 'must name at least one region; null (or leaving it out) means every region that has a worker')
  .max(50, 'at most 50 regions')
  .superRefine((list, ctx) => {
    list.forEach((r, i) => {
      const first = list.indexOf(r);
      if (first !== i)
        ctx.addIssue({ code: 'custom', path: [i], message: `repeats regions[${first}] '${r}'` });
    });
  })
  .nullable()
  .default(null)
  .meta({
    description:
      'the regions whose workers must probe it, e.g. [eu-west, us-east]; null: every region that has a worker',
  });

/**
 * A CA bundle given as the secrets are: the PEM itself, `file:/absolute/path` or `env:NAME`, read at probe
 * time. It replaces the system roots for the balancer's HTTPS nodes (and its samples).
 */
export const CaBundle = z
  .string()
  .max(512 * 1024, 'must be at most 512 KiB')
  .refine(
    (v) =>
      /^env:[A-Za-z_][A-Za-z0-9_]*$/.test(v) ||
      /^file:\/[^\0\r\n]+$/.test(v) ||
      /^\s*-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]+-----END CERTIFICATE-----[\s\S]*$/.test(v),
    'must be PEM certificates (-----BEGIN CERTIFICATE-----), file:/absolute/path or env:NAME',
  )
  .meta({
    description:
      'CA certificates the HTTPS nodes are verified with instead of the system roots: PEM, file:/absolute/path or env:NAME (read at probe time)',
  });

/** The most characters a node's display name has: a configured one is refused past it, a remote one cut. */
export const NODE_NAME_MAX = 80;

/** A node's display name as an operator configures it: trimmed, 1..80 characters, no control characters. */
export const NodeName = z
  .string({ error: 'must be a name (text)' })
  .trim()
  .min(1, 'must not be empty')
  .max(NODE_NAME_MAX, `must be at most ${NODE_NAME_MAX} characters`)
  .refine((v) => !hasControlCharacters(v), CONTROL_CHARACTERS_ISSUE)
  .meta({ description: `the node's display name: 1 to ${NODE_NAME_MAX} characters, no control characters` });

/** One listed node: its URL, or its URL with the name operators know it by. */
export const NodeEntry = z.union(
  [
    httpUrl,
    z.strictObject({ url: httpUrl, name: NodeName }).meta({
      description: 'a node URL with its display name, e.g. { url: http://10.0.0.5/mcp, name: search-3 }',
    }),
  ],
  { error: 'must be a node URL, or { url, name }' },
);
export type NodeEntry = z.input<typeof NodeEntry>;

/** The URL of a listed node, given plain or with its name. */
export const entryUrl = (e: NodeEntry): string => (typeof e === 'string' ? e : e.url);

const balancerFields = {
  name: BalancerName,
  publicUrl: httpUrl,
  nodeUrls: z.array(NodeEntry).max(1000, 'at most 1000 node URLs').default([]).meta({
    description: 'the nodes to probe directly: each a URL, or { url, name } to give it a display name',
  }),
  nodeNames: z.record(z.string(), NodeName).optional().meta({
    description:
      'display names of listed nodes by URL (as the API shows them); a name given in nodeUrls wins; each key must be in nodeUrls',
  }),
  resolveDns: z.boolean().default(false),
  samplesPerCycle: z.int().min(0).max(50).default(4),
  intervalMs: z.int().min(1_000).max(86_400_000).default(30_000),
  timeoutMs: z.int().min(100).max(60_000).default(5_000),
  legacyProbeTimeoutMs: z.int().min(100).max(60_000).default(3_000),
  allowLegacy: z.boolean().default(false),
  auditLegacy: z.boolean().default(false),
  legacyVersions: z
    .array(revision)
    .min(1)
    .max(20)
    .default([...DEFAULT_LEGACY_VERSIONS]),
  headers: z.record(headerName, headerValue).default({}),
  attributionHeader: headerName.nullable().default(null),
  /** List each node's tools after a settled verdict; the catalog is then a fingerprint dimension. */
  catalog: z.boolean().default(true),
  /** List tools every Nth cycle, and whenever a node's verdict (era, version, server) changes. */
  catalogEvery: z.int().min(1).max(1_000).default(5),
  auth: OAuthClientCredentialsInput.nullable().default(null),
  regions: Regions,
  tlsCa: CaBundle.nullable().default(null),
};

type NodeFields = { nodeUrls: NodeEntry[]; nodeNames?: Record<string, string> | undefined };

/** Every key of `nodeNames` must name a URL of `nodeUrls`: a name for a node not listed would be lost. */
function nodeNamesListed(v: NodeFields, ctx: z.RefinementCtx): void {
  const listed = new Set(v.nodeUrls.map(entryUrl));
  for (const url of Object.keys(v.nodeNames ?? {}))
    if (!listed.has(url))
      ctx.addIssue({
        code: 'custom',
        path: ['nodeNames'],
        message: `names ${JSON.stringify(url.slice(0, 200))}, which is not in nodeUrls`,
      });
}

/** The stored form: `nodeUrls` plain URLs, every name in `nodeNames` (a name given with its URL wins). */
export function splitNodeNames<T extends NodeFields>(
  v: T,
): Omit<T, 'nodeUrls' | 'nodeNames'> & { nodeUrls: string[]; nodeNames: Record<string, string> } {
  const nodeNames: Record<string, string> = { ...v.nodeNames };
  for (const e of v.nodeUrls) if (typeof e !== 'string') nodeNames[e.url] = e.name;
  return { ...v, nodeUrls: v.nodeUrls.map(entryUrl), nodeNames };
}

/** A registration; its output keeps node URLs and their names apart (`nodeUrls: string[]`, `nodeNames`). */
export const CreateBalancerInput = z
  .object(balancerFields)
  .refine(deadlineFits, deadlineIssue)
  .superRefine(nodeNamesListed)
  .transform(splitNodeNames);
export type CreateBalancerInput = z.input<typeof CreateBalancerInput>;
export type BalancerSettings = z.output<typeof CreateBalancerInput>;

/** The same, refusing unknown keys: the API's body and the config file's entries. */
export const StrictCreateBalancerInput = z
  .strictObject(balancerFields)
  .refine(deadlineFits, deadlineIssue)
  .superRefine(nodeNamesListed)
  .transform(splitNodeNames);

/** Partial update; the merged result is validated again with CreateBalancerInput. */
export const UpdateBalancerInput = z.object(balancerFields).partial();
export type UpdateBalancerInput = z.input<typeof UpdateBalancerInput>;
