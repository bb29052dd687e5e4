// Pure helpers for the balancer detail: matrix columns, fingerprint differences, regions.
import type { CacheHazard, Fingerprint, PartitionGroup } from '@/lib/rollout/types';

/** "A", "B", … for fingerprint groups, largest first (the analysis' order). */
export function groupLetter(index: number): string {
  return index < 26 ? String.fromCharCode(65 + index) : `G${index + 1}`;
}

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

/** A node row's region: the one its state was probed from (`default` before regions). */
export function regionOfRow(n: { state: { region?: string } | null }): string {
  return n.state?.region ?? 'default';
}
