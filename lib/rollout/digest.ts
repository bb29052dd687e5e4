// The balancer analysis's digest: whether a cycle found what the last one did, so the store leaves the stored
// JSON as it is. Server-only (node:crypto): not exported from lib/rollout/index.ts, which the browser imports.
import { hash } from 'node:crypto';
import { canonicalJson } from '@/lib/probe/catalog';
import type { BalancerAnalysis } from './types';

/**
 * A digest of a balancer's analysis and snapshot without their bookkeeping: the time (`analyzedAt`, each region's too),
 * the cycle count, and each node's catalog listing status and time. Equal digests mean the cycle found what the last one did,
 * and the stored JSON is left as it is; only the time and the cycle count are written. A reader takes both
 * from their columns (see withCycleOf), so the analysis it sees is the latest one.
 */
export function analysisDigest(a: BalancerAnalysis): string {
  const { snapshot, analyzedAt: _analyzedAt, regions, ...rest } = a;
  const stable = {
    ...rest,
    regions: regions.map((r) => ({ ...r, analyzedAt: 0 })),
    snapshot: {
      ...snapshot,
      at: 0,
      cycle: 0,
      nodes: snapshot.nodes.map((n) =>
        n.catalog ? { ...n, catalog: { ...n.catalog, status: null, listedAt: 0 } } : n,
      ),
    },
  };
  // Canonical (sorted keys): parts carried over from a parsed snapshot keep the schema's key order, fresh
  // ones the order they were built in.
  return hash('sha1', canonicalJson(stable), 'base64url');
}
