// A node listing 20,002 revisions, junk among them, under the body limit: the probe keeps only
// revision-shaped strings, at most 64 (the newest), and says how many it dropped; the store keeps that and
// no more, on both engines. Junk such as `javascript:alert(1)` never counts as a modern revision.
import { afterAll, describe, expect, it } from 'vitest';
import { listNodes } from '@/db/queries/nodes';
import { createBalancer } from '@/lib/balancers';
import { closeSharedProbeAgents, DEFAULT_PROBE_OPTIONS, probeNode } from '@/lib/probe';
import { MAX_SERVED_REVISIONS } from '@/lib/probe/classify';
import { discoverResult, rpcOf, sendJson, startFaultPeer, type FaultPeer } from '@/tests/support/fault-peer';
import { runOneCycle } from '@/tests/support/cycle';
import { tempStore } from './support';

process.env.ERAWATCH_ALLOW_LOOPBACK = '1';

/** 20,000 dated revisions (2026-07-28 and 19,999 later days), junk, and one handshake-era revision. */
function manyRevisions(): string[] {
  const out = ['javascript:alert(1)', '<img src=x onerror=alert(1)>', '2025-11-25'];
  const day = Date.UTC(2026, 6, 28);
  for (let i = 0; i < 20_000; i++) out.push(new Date(day + i * 86_400_000).toISOString().slice(0, 10));
  // 20,002 entries: a listing that fits the 1 MiB body limit.
  return out.slice(0, 20_002);
}

const peers: FaultPeer[] = [];
async function peer(supported: string[]): Promise<FaultPeer> {
  const p = await startFaultPeer((req, res) => {
    const { method, id } = rpcOf(req);
    if (method === 'server/discover') return sendJson(res, 200, discoverResult(id, supported));
    res.writeHead(202).end();
  });
  peers.push(p);
  return p;
}
const env = await tempStore('served-revisions');
afterAll(async () => {
  await Promise.all(peers.map((p) => p.close()));
  await closeSharedProbeAgents();
  await env.cleanup();
});

const options = { ...DEFAULT_PROBE_OPTIONS, timeoutMs: 10_000 };
const egress = { allowLoopback: true, allowPrivate: true };

describe('the served revisions a node lists', () => {
  it('are kept only when shaped like a revision, at most 64 of the newest, the rest counted', async () => {
    const listed = manyRevisions();
    const p = await peer(listed);
    const v = await probeNode({ url: p.url }, options, { egress });
    expect(v).toMatchObject({ verdict: 'modern', negotiatedVersion: '2026-07-28' });
    expect(v.supported).toHaveLength(MAX_SERVED_REVISIONS);
    expect(v.supported.every((r) => /^\d{4}-\d{2}-\d{2}$/.test(r))).toBe(true);
    // Newest first: the newest listed is kept; the oldest (and the one handshake-era revision) are not.
    const dated = listed
      .filter((r) => /^\d{4}-\d{2}-\d{2}$/.test(r))
      .sort()
      .reverse();
    expect(v.supported).toEqual(dated.slice(0, MAX_SERVED_REVISIONS));
    expect(v.anomaly).toBe(
      `served revisions: kept 64 of 20002 listed, dropped 19938 (2 not shaped like a revision (YYYY-MM-DD), 19936 older beyond the first 64)`,
    );
  });

  it('junk alone never counts as a modern revision', async () => {
    const p = await peer(['2025-11-25', 'javascript:alert(1)', 'modern', '']);
    const v = await probeNode({ url: p.url }, options, { egress });
    expect(v.supported).toEqual(['2025-11-25']);
    expect(v.servedEras).toBe('legacy-only');
    expect(v.anomaly).toContain('dropped 3 (3 not shaped like a revision (YYYY-MM-DD))');
  });

  it('the store keeps the capped list and the count of what was dropped', async () => {
    const p = await peer(manyRevisions());
    const b = await createBalancer(env.store, {
      name: 'many-revisions',
      publicUrl: p.url,
      nodeUrls: [p.url],
      samplesPerCycle: 0,
      intervalMs: 30_000,
      timeoutMs: 8_000,
    });
    await runOneCycle(env.store, b.id);
    const nodes = await listNodes(env.store, b.id);
    const verdict = nodes[0]?.state?.verdict;
    expect(verdict?.verdict).toBe('modern');
    expect(verdict?.supported).toHaveLength(MAX_SERVED_REVISIONS);
    expect(verdict?.anomaly).toContain('dropped 19938');
    expect(JSON.stringify(nodes)).not.toContain('javascript:alert(1)');
  });
});
