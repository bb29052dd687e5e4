// The dashboard's read model against a real SQLite file, seeded through the store and the poller's writer.
import { processSettings } from '@/lib/settings';
import { analysisDigest } from '@/lib/rollout/digest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '@/db';
import { createBalancer } from '@/lib/balancers';
import { NotFoundError } from '@/lib/errors';
import { writeProbes } from '@/db/queries/subjects';
import type { Verdict } from '@/lib/probe/types';
import { analyzeCycle, keyedFingerprintOf } from '@/lib/rollout';
import { readBalancerDetail, readNodeSummaries } from '@/db/queries/dashboard';
import { readFleetRows, readNodeLabels } from '@/lib/api/read-model';

let dir: string;
let store: Store;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-ui-read-'));
  store = await openStore(path.join(dir, 'ui.db'), { settings: processSettings() });
});

afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function verdict(url: string, era: 'modern' | 'legacy' | 'unavailable', at: number): Verdict {
  const modern = era === 'modern';
  return {
    url,
    verdict: era,
    reason: modern ? 'discover_result' : era === 'legacy' ? 'legacy_positive_evidence' : 'timeout',
    negotiatedVersion: era === 'unavailable' ? null : modern ? '2026-07-28' : '2025-11-25',
    supported: era === 'unavailable' ? [] : modern ? ['2026-07-28'] : ['2025-11-25'],
    servedEras: era === 'unavailable' ? 'unknown' : modern ? 'modern-only' : 'legacy-only',
    serverInfo: era === 'unavailable' ? null : { name: 'srv', version: '1' },
    cache: modern ? { ttlMs: 60_000, cacheScope: 'public' } : null,
    initializeSent: era === 'legacy',
    anomaly: null,
    evidence: [
      {
        step: 'discover',
        method: 'server/discover',
        protocolVersion: '2026-07-28',
        requestId: 'erawatch-1',
        httpStatus: modern ? 200 : null,
        contentType: modern ? 'application/json' : null,
        outcome: modern ? 'result' : 'timeout',
        rpcError: null,
        elapsedMs: 4,
      },
    ],
    probedAt: at,
    durationMs: 4,
    address: '127.0.0.1',
    servedBy: null,
  };
}

/** A balancer with one stored cycle whose nodes have the given eras. */
async function seed(
  name: string,
  eras: Array<'modern' | 'legacy' | 'unavailable'>,
  at = 1_000_000,
  divergedAt: number[] = [],
): Promise<string> {
  const b = await createBalancer(store, {
    name,
    publicUrl: `http://127.0.0.1:9/${name}`,
    headers: { authorization: 'Bearer s3cret', 'x-env': 'env:TOKEN' },
  });
  const newNodes = eras.map((_, i) => ({
    id: `nod_${name}_${i}`,
    key: `listed:http://127.0.0.1:${7000 + i}/mcp`,
    origin: 'listed' as const,
    url: `http://127.0.0.1:${7000 + i}/mcp`,
    address: null,
    servedBy: null,
  }));
  const results = newNodes.map((n, i) => {
    const v = verdict(n.url, eras[i] ?? 'modern', at);
    return {
      nodeId: n.id,
      seq: null,
      verdict: v,
      fingerprintKey: keyedFingerprintOf(v)?.key ?? null,
      prior: null,
    };
  });
  const analysis = analyzeCycle({
    balancerId: b.id,
    at,
    nodes: results.map((r) => ({ nodeId: r.nodeId, verdict: r.verdict, recentChanges: [] })),
    samples: [],
    window: null,
    gateRevisions: ['2026-07-28'],
  });
  const events = divergedAt.map((t) => ({
    type: 'balancer.diverged' as const,
    balancerId: b.id,
    at: t,
    data: {},
  }));
  await writeProbes(store, {
    kind: 'node',
    region: 'default',
    balancerId: b.id,
    at,
    newNodes,
    results,
    analysis,
    analysisDigest: analysisDigest(analysis),
    events,
  });
  return b.id;
}

describe('readFleetRows', () => {
  it('lists every balancer with state, era mix and gate, non-uniform first', async () => {
    await seed('a-uniform', ['modern', 'modern']);
    await seed('b-split', ['modern', 'legacy', 'modern'], 1_000_000, [400_000, 900_000]);
    await seed('c-degraded', ['modern', 'unavailable']);
    await createBalancer(store, { name: 'd-new', publicUrl: 'http://127.0.0.1:9/new' });

    const rows = await readFleetRows(store);
    expect(rows.map((r) => [r.name, r.status, r.nonUniform])).toEqual([
      ['b-split', 'era-split', true],
      ['c-degraded', 'degraded', false],
      ['a-uniform', 'uniform', false],
      ['d-new', 'pending', false],
    ]);
    const split = rows[0];
    expect(split?.mix).toEqual({ modern: 2, legacy: 1, unavailable: 0, authGated: 0 });
    expect(split?.gateReady).toBe(false);
    // Non-uniform since the latest divergence; uniform rows have no such time.
    expect(split?.nonUniformSince).toBe(900_000);
    expect(rows[2]?.nonUniformSince).toBeNull();
    expect(rows[2]?.gateReady).toBe(true);
    expect(rows[1]?.mix).toEqual({ modern: 1, legacy: 0, unavailable: 1, authGated: 0 });
    expect(rows[3]).toMatchObject({ gateReady: null, lastProbeAt: null });
  });
});

describe('readBalancerDetail', () => {
  it('returns the analysis without the snapshot, and the settings as stored (the route redacts them)', async () => {
    const id = await seed('detail', ['modern', 'legacy']);
    const d = await readBalancerDetail(store, id);
    expect(d.analysis?.status).toBe('non-uniform');
    expect(d.analysis?.partition).toHaveLength(2);
    expect(d.analysis?.cacheHazard.maxTtlMs).toBe(60_000);
    expect(d.analysis).not.toHaveProperty('snapshot');
    expect(d.headers).toEqual({ authorization: 'Bearer s3cret', 'x-env': 'env:TOKEN' });
    expect(d.window).toBeNull();
  });

  it('throws NotFoundError for an unknown balancer', async () => {
    await expect(async () => await readBalancerDetail(store, 'bal_missing')).rejects.toThrow(NotFoundError);
  });
});

describe('readNodeSummaries and readNodeLabels', () => {
  it('gives each node its verdict headline without the evidence', async () => {
    const id = await seed('nodes', ['modern', 'unavailable']);
    const nodes = await readNodeSummaries(store, id);
    expect(nodes.map((n) => [n.url, n.state?.verdict.verdict, n.state?.verdict.supported])).toEqual([
      ['http://127.0.0.1:7000/mcp', 'modern', ['2026-07-28']],
      ['http://127.0.0.1:7001/mcp', 'unavailable', []],
    ]);
    expect(JSON.stringify(nodes)).not.toContain('evidence');
    await expect(async () => await readNodeSummaries(store, 'bal_missing')).rejects.toThrow(NotFoundError);
  });

  it('labels known node ids by URL and leaves unknown ids out', async () => {
    await seed('labels', ['modern']);
    expect(await readNodeLabels(store, ['nod_labels_0', 'nod_nope'])).toEqual({
      nod_labels_0: 'http://127.0.0.1:7000/mcp',
    });
    expect(await readNodeLabels(store, [])).toEqual({});
  });
});
