// A balancer with 1,000 nodes, seeded through the store and the poller's own cycle writer (as `npm run bench --
// ui` does), for browser tests of the node matrix: node i is http://127.0.0.1:(20000+i)/mcp; every 7th is
// legacy (143 nodes: group B), every 50th of the rest unavailable (17), the other 840 modern (group A).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore, type Store } from '@/db/index';
import { writeProbes } from '@/db/queries/subjects';
import { createBalancer } from '@/lib/balancers';
import type { Verdict } from '@/lib/probe/types';
import { analyzeCycle, keyedFingerprintOf } from '@/lib/rollout';
import { analysisDigest } from '@/lib/rollout/digest';
import { processSettings } from '@/lib/settings';

export type Kind = 'modern' | 'legacy' | 'down';

export const BIG_NODES = 1_000;
export const kindOf = (i: number): Kind => (i % 7 === 0 ? 'legacy' : i % 50 === 0 ? 'down' : 'modern');
export const nodeUrl = (i: number): string => `http://127.0.0.1:${20_000 + i}/mcp`;
/** Latency of node i: 3 to 19 ms, so a sort by latency has ties and an order to check. */
export const latencyOf = (i: number): number => 3 + ((i * 2) % 17);

function discover(seq: number, httpStatus: number | null, outcome: 'result' | 'rpc_error' | 'timeout') {
  return {
    step: 'discover' as const,
    method: 'server/discover',
    protocolVersion: '2026-07-28',
    requestId: `erawatch-${seq}`,
    httpStatus,
    contentType: httpStatus === null ? null : 'application/json',
    outcome,
    rpcError:
      outcome === 'rpc_error' ? { code: -32000, message: 'Bad Request: No valid session ID provided' } : null,
    elapsedMs: 3,
  };
}

function verdictFor(i: number, at: number): Verdict {
  const kind = kindOf(i);
  const base = {
    url: nodeUrl(i),
    probedAt: at,
    durationMs: latencyOf(i),
    address: '127.0.0.1',
    servedBy: null,
    anomaly: null,
    cache: null,
    initializeSent: false,
  };
  if (kind === 'modern') {
    return {
      ...base,
      verdict: 'modern',
      reason: 'discover_result',
      negotiatedVersion: '2026-07-28',
      supported: ['2026-07-28'],
      servedEras: 'modern-only',
      serverInfo: { name: 'big', version: '2.4.0' },
      evidence: [discover(i, 200, 'result')],
    };
  }
  if (kind === 'legacy') {
    return {
      ...base,
      verdict: 'legacy',
      reason: 'legacy_positive_evidence',
      negotiatedVersion: '2025-11-25',
      supported: ['2025-11-25'],
      servedEras: 'legacy-only',
      serverInfo: { name: 'big', version: '1.32.2' },
      initializeSent: true,
      evidence: [
        discover(i, 400, 'rpc_error'),
        {
          step: 'initialize',
          method: 'initialize',
          protocolVersion: '2025-11-25',
          requestId: `erawatch-${i}-init`,
          httpStatus: 200,
          contentType: 'text/event-stream',
          outcome: 'result',
          rpcError: null,
          elapsedMs: 4,
          checks: [
            { name: 'id_match', passed: true },
            { name: 'single_result', passed: true },
            { name: 'protocol_version', passed: true },
            { name: 'capabilities_object', passed: true },
            { name: 'server_info', passed: true },
          ],
          sessionIssued: true,
        },
      ],
    };
  }
  return {
    ...base,
    verdict: 'unavailable',
    reason: 'timeout',
    negotiatedVersion: null,
    supported: [],
    servedEras: 'unknown',
    serverInfo: null,
    evidence: [{ ...discover(i, null, 'timeout'), elapsedMs: 5_000, detail: 'no response within 5000 ms' }],
  };
}

async function seedCycle(store: Store, balancerId: string, at: number): Promise<void> {
  const newNodes = Array.from({ length: BIG_NODES }, (_, i) => ({
    id: `nod_big_${String(i).padStart(4, '0')}`,
    key: `listed:${nodeUrl(i)}`,
    origin: 'listed' as const,
    url: nodeUrl(i),
    address: '127.0.0.1',
    servedBy: null,
  }));
  const results = newNodes.map((n, i) => {
    const verdict = verdictFor(i, at);
    return {
      nodeId: n.id,
      seq: null,
      verdict,
      fingerprintKey: keyedFingerprintOf(verdict)?.key ?? null,
      prior: null,
    };
  });
  const analysis = analyzeCycle({
    balancerId,
    at,
    nodes: results.map((r) => ({ nodeId: r.nodeId, verdict: r.verdict, recentChanges: [] })),
    samples: [],
    window: null,
    gateRevisions: ['2026-07-28'],
  });
  await writeProbes(store, {
    kind: 'node',
    region: 'default',
    balancerId,
    at,
    newNodes,
    results,
    analysis,
    analysisDigest: analysisDigest(analysis),
    events: [],
  });
}

/** A fresh database file holding one balancer, `big-fleet`, with 1,000 probed nodes; start the app with the
 *  poller off on it (`ERAWATCH_DB`, `ERAWATCH_POLLER=off`), or the next cycle probes the made-up URLs. */
export async function seedBigBalancer(): Promise<{ dbFile: string; id: string; cleanup: () => void }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-e2e-big-'));
  const dbFile = path.join(dir, 'erawatch.db');
  const store = await openStore(dbFile, { settings: processSettings() });
  try {
    const at = Date.now();
    const b = await createBalancer(store, { name: 'big-fleet', publicUrl: 'http://127.0.0.1:9/big' }, at);
    await seedCycle(store, b.id, at);
    return { dbFile, id: b.id, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
  } finally {
    await store.close();
  }
}
