// Which probes one balancer cycle makes: its listed node URLs, one per DNS address of its host, and K samples
// of its public URL. Pure: the resolved addresses and the environment are parameters.
import type { NodeOrigin } from '@/db';
import type { BalancerSettings } from '@/lib/schemas/balancer';
import type { OAuthClientCredentials, ProbeOptions, ProbeTarget } from '@/lib/probe/types';
import { DEFAULT_PROBE_OPTIONS } from '@/lib/probe/types';
import type { Env } from '@/lib/settings';
import { readCaFile } from './ca-files';

export interface PlannedNode {
  key: string;
  origin: NodeOrigin;
  url: string;
  address: string | null;
  target: ProbeTarget;
}

export interface CyclePlan {
  nodes: PlannedNode[];
  samples: ProbeTarget[];
  options: ProbeOptions;
  /** Set when a header references an unset variable: every probe of the cycle is then skipped as unavailable. */
  headerProblem: string | null;
}

export function nodeKey(origin: NodeOrigin, value: string): string {
  return `${origin}:${value}`;
}

/** Resolves `env:NAME` header values; a missing variable is reported, never sent as an empty header. */
export function resolveHeaders(
  headers: Record<string, string>,
  env: Env,
): { headers: Record<string, string>; missing: string[] } {
  const out: Record<string, string> = {};
  const missing: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const ref = /^env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(value);
    if (!ref) {
      out[name] = value;
      continue;
    }
    const varName = ref[1] ?? '';
    const resolved = env[varName];
    if (resolved === undefined || resolved === '' || /[\r\n]/.test(resolved)) missing.push(varName);
    else out[name] = resolved;
  }
  return { headers: out, missing };
}

/** The OAuth credential with its secret resolved; a missing variable is reported, never sent empty. */
export function resolveOAuth(
  auth: BalancerSettings['auth'],
  env: Env,
): { oauth: OAuthClientCredentials | null; missing: string | null } {
  if (!auth) return { oauth: null, missing: null };
  const { secret } = resolveHeaders({ secret: auth.clientSecret }, env).headers;
  const ref = /^env:(.+)$/.exec(auth.clientSecret);
  if (secret === undefined) return { oauth: null, missing: ref?.[1] ?? 'clientSecret' };
  return {
    oauth: {
      clientId: auth.clientId,
      clientSecret: secret,
      ...(auth.scope ? { scope: auth.scope } : {}),
      ...(auth.issuer ? { issuer: auth.issuer } : {}),
      ...(auth.tokenUrl ? { tokenUrl: auth.tokenUrl } : {}),
      ...(auth.resource ? { resource: auth.resource } : {}),
    },
    missing: null,
  };
}

/** The balancer's CA bundle as PEM: given, from `file:PATH` or from `env:NAME`; a bundle it cannot read is reported. */
export function resolveCaBundle(
  value: string | null,
  env: Env,
  readFile: (path: string) => string | null = readCaFile,
): { pem: string | null; problem: string | null } {
  if (value === null) return { pem: null, problem: null };
  const ref = /^env:(.+)$/.exec(value);
  if (ref) {
    const name = ref[1] ?? '';
    const pem = env[name];
    return pem ? { pem, problem: null } : { pem: null, problem: `tls_ca_env_missing:${name}` };
  }
  const file = /^file:(.+)$/.exec(value);
  if (file) {
    const pem = readFile(file[1] ?? '');
    return pem ? { pem, problem: null } : { pem: null, problem: `tls_ca_file_unreadable:${file[1] ?? ''}` };
  }
  return { pem: value, problem: null };
}

export function probeOptionsFor(b: BalancerSettings): ProbeOptions {
  return {
    ...DEFAULT_PROBE_OPTIONS,
    legacyVersions: [...b.legacyVersions],
    timeoutMs: b.timeoutMs,
    legacyProbeTimeoutMs: b.legacyProbeTimeoutMs,
  };
}

/** `addresses` is null when the balancer does not resolve DNS, or when resolution failed. */
export function planCycle(
  b: BalancerSettings,
  addresses: readonly string[] | null,
  env: Env,
  readFile?: (path: string) => string | null,
): CyclePlan {
  const { headers, missing } = resolveHeaders(b.headers, env);
  const { oauth, missing: secretMissing } = resolveOAuth(b.auth, env);
  const ca = resolveCaBundle(b.tlsCa ?? null, env, readFile);
  const base: Omit<ProbeTarget, 'url'> = {
    headers,
    allowLegacy: b.allowLegacy,
    auditLegacy: b.auditLegacy,
    publicUrl: b.publicUrl,
    ...(oauth ? { oauth } : {}),
    ...(ca.pem ? { tlsCa: ca.pem } : {}),
    // Every probe reads the attribution header: a sample's value names its node, a node's own is its name.
    ...(b.attributionHeader ? { attributionHeader: b.attributionHeader } : {}),
  };
  const nodes: PlannedNode[] = [];
  const seen = new Set<string>();
  for (const url of b.nodeUrls) {
    const key = nodeKey('listed', url);
    if (seen.has(key)) continue;
    seen.add(key);
    nodes.push({ key, origin: 'listed', url, address: null, target: { url, ...base } });
  }
  for (const address of addresses ?? []) {
    const key = nodeKey('dns', address);
    if (seen.has(key)) continue;
    seen.add(key);
    nodes.push({
      key,
      origin: 'dns',
      url: b.publicUrl,
      address,
      target: { url: b.publicUrl, connectAddress: address, ...base },
    });
  }
  const sampleTarget: ProbeTarget = { url: b.publicUrl, ...base };
  const samples = Array.from({ length: b.samplesPerCycle }, () => sampleTarget);
  return {
    nodes,
    samples,
    options: probeOptionsFor(b),
    headerProblem:
      missing.length > 0
        ? `header_env_missing:${missing.join(',')}`
        : secretMissing
          ? `oauth_secret_env_missing:${secretMissing}`
          : ca.problem,
  };
}

/** A verdict for a probe the poller could not make (DNS failed, a header variable unset). */
/** The host name of a URL, without IPv6 brackets. */
export function hostOf(url: string): string {
  return new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
}
