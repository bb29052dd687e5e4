// A balancer with 1,000 nodes, seeded through the store and the poller's own cycle writer (as `npm run bench --
// ui` does), for browser tests of the node matrix: node i is http://127.0.0.1:(20000+i)/mcp; every 7th is
// legacy (143 nodes: group B), every 50th of the rest unavailable (17), the other 840 modern (group A).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore, type Store } from '@/db/index';
import { createBalancer } from '@/lib/balancers';
import { processSettings } from '@/lib/settings';
import { syntheticVerdict, writeSyntheticCycle, type SyntheticKind } from '@/bench/support/synthetic-cycle';

export type Kind = SyntheticKind;

export const BIG_NODES = 1_000;
export const kindOf = (i: number): Kind => (i % 7 === 0 ? 'legacy' : i % 50 === 0 ? 'down' : 'modern');
export const nodeUrl = (i: number): string => `http://127.0.0.1:${20_000 + i}/mcp`;
/** Latency of node i: 3 to 19 ms, so a sort by latency has ties and an order to check. */
export const latencyOf = (i: number): number => 3 + ((i * 2) % 17);

async function seedCycle(store: Store, balancerId: string, at: number): Promise<void> {
  const newNodes = Array.from({ length: BIG_NODES }, (_, i) => ({
    id: `nod_big_${String(i).padStart(4, '0')}`,
    url: nodeUrl(i),
  }));
  const results = newNodes.map((n, i) => ({
    nodeId: n.id,
    seq: null,
    verdict: syntheticVerdict(
      { url: n.url, kind: kindOf(i), durationMs: latencyOf(i), seq: i, serverName: 'big' },
      at,
    ),
  }));
  await writeSyntheticCycle(store, { balancerId, at, newNodes, results });
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
