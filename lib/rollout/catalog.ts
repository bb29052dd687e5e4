// The tool catalog as a fingerprint dimension: what each group adds or lacks against the largest one,
// what differs between groups, how long a client may keep a stale catalog, and the catalog cadence.
import type { CatalogRequest, ToolCatalog, Verdict } from '@/lib/probe/types';
import type { CatalogDiff, Fingerprint, NodeSnapshot, PartitionGroup } from './types';
import { normalizeRevisions } from './fingerprint';

function diffNames(base: ToolCatalog, other: ToolCatalog): CatalogDiff {
  const baseDigests = new Map(base.names.map((n, i) => [n, base.toolDigests[i]]));
  const otherNames = new Set(other.names);
  return {
    adds: other.names.filter((n) => !baseDigests.has(n)),
    lacks: base.names.filter((n) => !otherNames.has(n)),
    changed: other.names.filter((n, i) => baseDigests.has(n) && baseDigests.get(n) !== other.toolDigests[i]),
  };
}

/**
 * Sets each group's tool names and its difference from the largest group that has a catalog. `catalogOf`
 * gives the catalog behind a group key (every member of a group shares its digest, so any one will do).
 */
export function annotateCatalogs(
  partition: PartitionGroup[],
  catalogOf: (key: string) => ToolCatalog | null,
): PartitionGroup[] {
  const withCatalog = partition.map((g) => ({
    g,
    catalog: g.fingerprint.catalogDigest ? catalogOf(g.key) : null,
  }));
  const base = withCatalog.find((x) => x.catalog !== null)?.catalog ?? null;
  return withCatalog.map(({ g, catalog }) => ({
    ...g,
    toolNames: catalog ? catalog.names : null,
    catalogDiff: catalog && base && catalog.digest !== base.digest ? diffNames(base, catalog) : null,
  }));
}

/** What differs between the groups, in the words the UI and events use; only compared dimensions count. */
export function divergenceReasons(partition: readonly PartitionGroup[]): string[] {
  if (partition.length < 2) return [];
  const distinct = (f: (fp: Fingerprint) => unknown) =>
    new Set(partition.map((g) => JSON.stringify(f(g.fingerprint)))).size > 1;
  const reasons: string[] = [];
  if (distinct((fp) => fp.era)) reasons.push('eras differ');
  if (distinct((fp) => fp.negotiatedVersion)) reasons.push('negotiated versions differ');
  if (distinct((fp) => normalizeRevisions(fp.supported)) || distinct((fp) => fp.servedEras)) {
    reasons.push('served sets differ');
  }
  if (distinct((fp) => [fp.serverName, fp.serverVersion])) reasons.push('server versions differ');
  // Groups formed by samples carry no catalog (one response cannot): they do not make catalogs differ.
  const digests = new Set(
    partition.flatMap((g) => (g.fingerprint.catalogDigest ? [g.fingerprint.catalogDigest] : [])),
  );
  if (digests.size > 1) reasons.push('catalog differs');
  return reasons;
}

/** The largest catalog ttlMs among the nodes when their catalogs differ; null when they agree. */
export function catalogTtlOf(verdicts: readonly Verdict[]): number | null {
  const listed = verdicts.flatMap((v) =>
    v.verdict !== 'unavailable' && v.catalog?.digest ? [v.catalog] : [],
  );
  if (new Set(listed.map((c) => c.digest)).size < 2) return null;
  return listed.reduce<number | null>(
    (max, c) => (c.ttlMs === null ? max : Math.max(max ?? 0, c.ttlMs)),
    null,
  );
}

export interface CatalogCadence {
  enabled: boolean;
  /** List every Nth cycle; in between only when the settled verdict changed. */
  every: number;
  /** Where in the cadence this balancer lists (0 to every - 1, see catalogOffsetOf); default 0. */
  offset?: number;
}

/**
 * A balancer's place in the catalog cadence, from its id: balancers registered together would otherwise list
 * every catalog in the same interval (about one more request per node), all at once.
 */
export function catalogOffsetOf(balancerId: string, every: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < balancerId.length; i++) h = Math.imul(h ^ balancerId.charCodeAt(i), 0x01000193);
  return (h >>> 0) % Math.max(1, every);
}

/** Whether (and how) one node's probe lists tools this cycle, from the last snapshot of that node. */
export function catalogRequestFor(
  cadence: CatalogCadence,
  cycle: number,
  previous: NodeSnapshot | undefined,
): CatalogRequest | undefined {
  if (!cadence.enabled) return undefined;
  if ((cycle + (cadence.offset ?? 0)) % Math.max(1, cadence.every) === 0) return { list: 'always' };
  const known = previous?.catalog;
  if (known?.digest) return { list: 'if-changed', settledKey: known.settledKey };
  // Never listed in full: at once, then after a failed listing on the cadence like everyone else.
  if (previous?.catalogFailedKey !== undefined)
    return { list: 'if-changed', settledKey: previous.catalogFailedKey };
  return { list: 'always' };
}

/** What a node's snapshot remembers of a failed listing while it has no full catalog (see NodeSnapshot). */
export function catalogFailedKeyOf(
  current: ToolCatalog | null | undefined,
  previous: NodeSnapshot | undefined,
): string | undefined {
  if (current?.digest || previous?.catalog?.digest) return undefined;
  if (current?.status === 'failed') return current.settledKey;
  return previous?.catalogFailedKey;
}

/**
 * A verdict whose probe did not list the catalog this cycle (cadence, or a failed listing) keeps the last
 * full one, so a skipped or failed tools/list never reads as a catalog change. Returns the verdict to store.
 */
export function carryCatalog(v: Verdict, previous: NodeSnapshot | undefined, enabled: boolean): Verdict {
  if (!enabled || v.verdict === 'unavailable') return v;
  if (v.catalog?.status === 'listed') return v;
  const known = previous?.catalog;
  if (!known?.digest) return v;
  const carried: ToolCatalog = { ...known, status: 'carried' };
  if (v.catalog?.reason) carried.reason = v.catalog.reason;
  else delete carried.reason;
  return { ...v, catalog: carried };
}
