// Pure helpers for the balancer detail: matrix columns, fingerprint differences, the era mix over time.
import type { CacheHazard, Fingerprint, NodeSnapshot, PartitionGroup } from '@/lib/rollout/types';
import { isAuthGatedReason } from '@/lib/probe/types';
import type { EraMix } from './fleet';

/** Every revision any node was seen to serve, newest first: the matrix's columns. */
export function revisionColumns(sets: ReadonlyArray<readonly string[]>): string[] {
  const all = new Set<string>();
  for (const set of sets) for (const r of set) all.add(r);
  return [...all].sort((a, b) => b.localeCompare(a));
}

export const FINGERPRINT_FIELDS = [
  'era',
  'negotiatedVersion',
  'supported',
  'servedEras',
  'serverName',
  'serverVersion',
] as const;
export type FingerprintField = (typeof FINGERPRINT_FIELDS)[number];

export function fingerprintValue(fp: Fingerprint, field: FingerprintField): string {
  const v = fp[field];
  if (Array.isArray(v)) return v.length === 0 ? '—' : v.join(', ');
  return v === null ? '—' : String(v);
}

/** The fields whose value is not the same in every group: what the UI highlights. */
export function differingFields(
  groups: ReadonlyArray<Pick<PartitionGroup, 'fingerprint'>>,
): Set<FingerprintField> {
  const out = new Set<FingerprintField>();
  if (groups.length < 2) return out;
  for (const field of FINGERPRINT_FIELDS) {
    const values = new Set(groups.map((g) => fingerprintValue(g.fingerprint, field)));
    if (values.size > 1) out.add(field);
  }
  return out;
}

/** "3 tools: echo, search, suggest"; a group whose catalog was never listed says so. */
export function describeTools(g: Pick<PartitionGroup, 'toolNames'>): string {
  const names = g.toolNames;
  if (!names) return 'not listed';
  if (names.length === 0) return 'no tools';
  return `${names.length} tool${names.length === 1 ? '' : 's'}: ${names.join(', ')}`;
}

/** "+suggest −lookup ~search" against the largest group; null when the catalogs agree or are unknown. */
export function describeCatalogDiff(g: Pick<PartitionGroup, 'catalogDiff'>): string | null {
  const d = g.catalogDiff;
  if (!d) return null;
  const parts = [
    ...d.adds.map((n) => `adds ${n}`),
    ...d.lacks.map((n) => `lacks ${n}`),
    ...d.changed.map((n) => `changes ${n}`),
  ];
  return parts.length > 0 ? parts.join(', ') : 'same names, other descriptions or schemas';
}

/** The headline's explanation of a drift: what differs, in the analysis' words. */
export function describeDrift(reasons: readonly string[] | undefined): string {
  const r = reasons ?? [];
  if (r.length === 1 && r[0] === 'catalog differs') {
    return 'Clients agree on the era, but the tool catalog differs: a client that cached one node’s tools/list may call a tool another node lacks.';
  }
  if (r.length === 0) return 'Clients agree on the era, but served revisions or versions differ.';
  return `Clients agree on the era, but ${r.join(', ')}.`;
}

/** "2 of 4 samples (50 %) contradicted the first"; a plain note with fewer than two samples. */
export function describeContradiction(h: CacheHazard): string {
  if (h.contradictingShare === null) {
    return h.availableSamples === 0 ? 'no samples this cycle' : 'one sample this cycle: nothing to compare';
  }
  const pct = Math.round(h.contradictingShare * 100);
  return `${h.contradictingSamples} of ${h.availableSamples} samples (${pct} %) contradicted the first`;
}

/** 90000 → "1 min 30 s"; 250 → "250 ms". */
export function formatDuration(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1_000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 === 0 ? `${m} min` : `${m} min ${s % 60} s`;
  const h = Math.floor(m / 60);
  return m % 60 === 0 ? `${h} h` : `${h} h ${m % 60} min`;
}

export interface MixPoint extends EraMix {
  at: number;
}

export interface EraEvent {
  type: string;
  nodeId: string | null;
  at: number;
  data: Record<string, unknown>;
}

type Availability = 'available' | 'unavailable' | 'auth-gated';
type NodeEra = { state: Availability; era: 'modern' | 'legacy' | null };

function mixOf(nodes: Map<string, NodeEra>): EraMix {
  const mix: EraMix = { modern: 0, legacy: 0, unavailable: 0, authGated: 0 };
  for (const n of nodes.values()) {
    if (n.state === 'auth-gated') mix.authGated += 1;
    else if (n.state === 'unavailable') mix.unavailable += 1;
    // Available with no era yet: before its first event the node was not in the fleet (or not probed).
    else if (n.era !== null) mix[n.era] += 1;
  }
  return mix;
}

function downState(reason: unknown): Availability {
  return typeof reason === 'string' && isAuthGatedReason(reason) ? 'auth-gated' : 'unavailable';
}

/** What a node was before an unavailable or auth-gated event: the event's `from`, else available. */
function stateBefore(from: unknown): Availability {
  return from === 'unavailable' || from === 'auth-gated' ? from : 'available';
}

function eraFrom(value: unknown): 'modern' | 'legacy' | null {
  if (typeof value !== 'object' || value === null) return null;
  const era = (value as { era?: unknown }).era;
  return era === 'modern' || era === 'legacy' ? era : null;
}

/**
 * Rebuilds the node era mix over time by undoing node events from the current snapshot backwards.
 * Each returned point's mix holds from its `at` until the next point's (the last until now); the first
 * point is at `since`. Events are one balancer's, in any order (ties keep their given order).
 */
export function replayEraMix(
  current: readonly NodeSnapshot[],
  events: readonly EraEvent[],
  since: number,
  now: number,
): MixPoint[] {
  const nodes = new Map<string, NodeEra>(
    current.map((n) => [
      n.nodeId,
      { state: n.available ? 'available' : downState(n.reason), era: n.era } satisfies NodeEra,
    ]),
  );
  const newestFirst = events
    .map((e, i) => ({ e, i }))
    .filter(({ e }) => e.nodeId !== null && e.at <= now && e.at > since)
    .sort((a, b) => b.e.at - a.e.at || b.i - a.i);
  const reversed: MixPoint[] = [];
  let mix = mixOf(nodes);
  for (const { e } of newestFirst) {
    const id = e.nodeId ?? '';
    const node: NodeEra = nodes.get(id) ?? { state: 'available', era: null };
    if (e.type === 'node.era_changed') node.era = eraFrom(e.data.from) ?? node.era;
    else if (e.type === 'node.recovered') node.state = downState(e.data.downReason);
    else if (e.type === 'node.unavailable' || e.type === 'node.auth_gated')
      node.state = stateBefore(e.data.from);
    else continue;
    nodes.set(id, node);
    reversed.push({ at: e.at, ...mix });
    mix = mixOf(nodes);
  }
  reversed.push({ at: since, ...mix });
  return reversed.reverse();
}

/** A node row's region: the one its state was probed from (`default` before regions). */
export function regionOfRow(n: { state: { region?: string } | null }): string {
  return n.state?.region ?? 'default';
}

/** The regions that probed any of these rows, sorted. */
export function rowRegions(rows: ReadonlyArray<{ state: { region?: string } | null }>): string[] {
  return [...new Set(rows.filter((r) => r.state !== null).map(regionOfRow))].sort();
}

/**
 * The matrix split by region: one section per region, in name order, each with that region's rows. A node
 * not probed yet by any region has no region and goes in a last section named null.
 */
export function splitRowsByRegion<T extends { state: { region?: string } | null }>(
  rows: readonly T[],
): Array<{ region: string | null; rows: T[] }> {
  const sections = new Map<string, T[]>();
  const unprobed: T[] = [];
  for (const r of rows) {
    if (r.state === null) {
      unprobed.push(r);
      continue;
    }
    const region = regionOfRow(r);
    sections.set(region, [...(sections.get(region) ?? []), r]);
  }
  const out: Array<{ region: string | null; rows: T[] }> = [...sections.keys()]
    .sort()
    .map((region) => ({ region, rows: sections.get(region) ?? [] }));
  if (unprobed.length > 0) out.push({ region: null, rows: unprobed });
  return out;
}
