// Node seqs on PostgreSQL come from a sequence: two workers writing first rounds at once never wait for each
// other, seqs are never handed out twice, and a store migrated with nodes goes on past its highest seq.
import { processSettings } from '@/lib/settings';
import { analysisDigest } from '@/lib/rollout/digest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import { afterAll, expect, it } from 'vitest';
import { openStore, type Store } from '@/db';
import { postgresMigrationsFolder } from '@/db/engines/postgres';
import { createBalancer } from '@/lib/balancers';
import { writeProbes } from '@/db/queries/subjects';
import { modernVerdict } from '../../unit/rollout/verdict-factory';
import { analyzeCycle, keyedFingerprintOf } from '@/lib/rollout';
import { createDatabase, describePostgres, stopSharedCluster } from '../../support/postgres';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-node-seq-'));
const stores: Store[] = [];

afterAll(async () => {
  for (const s of stores) await s.close();
  fs.rmSync(dir, { recursive: true, force: true });
  await stopSharedCluster();
});

/** A balancer's first cycle: `count` nodes the store has not seen yet. */
async function firstRound(store: Store, name: string, count: number, at = 1_800_000_000_000) {
  const b = await createBalancer(store, { name, publicUrl: `http://127.0.0.1:9/${name}` });
  const newNodes = Array.from({ length: count }, (_, i) => ({
    id: `nod_${name}_${i}`,
    key: `listed:http://127.0.0.1:${7000 + i}/${name}`,
    origin: 'listed' as const,
    url: `http://127.0.0.1:${7000 + i}/${name}`,
    address: null,
    servedBy: null,
  }));
  const results = newNodes.map((n) => {
    const v = modernVerdict({ url: n.url, probedAt: at });
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
  return {
    kind: 'node' as const,
    region: 'default',
    balancerId: b.id,
    at,
    newNodes,
    results,
    analysis,
    analysisDigest: analysisDigest(analysis),
    events: [],
  };
}

async function seqsOf(url: string): Promise<number[]> {
  const client = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const rows = await client<
      Array<{ seq: number }>
    >`SELECT seq FROM nodes WHERE seq IS NOT NULL ORDER BY seq`;
    return rows.map((r) => Number(r.seq));
  } finally {
    await client.end({ timeout: 5 });
  }
}

describePostgres('node seqs on PostgreSQL', () => {
  it('two first rounds written at once do not wait for each other and get distinct seqs', async () => {
    const url = await createDatabase('node-seq');
    const a = await openStore(url, { settings: processSettings() });
    const b = await openStore(url, { settings: processSettings() });
    stores.push(a, b);
    const cycleA = await firstRound(a, 'a', 3);
    const cycleB = await firstRound(b, 'b', 2);
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    let wrote = () => {};
    const aWrote = new Promise<void>((r) => (wrote = r));
    // The first writer keeps its transaction open after numbering its nodes.
    const first = a.write(async () => {
      await writeProbes(a, cycleA);
      wrote();
      await held;
    });
    await aWrote;
    // The second completes meanwhile: with one lock around the numbering it would wait here until release.
    await writeProbes(b, cycleB);
    release();
    await first;
    const seqs = await seqsOf(url);
    expect(seqs).toHaveLength(5);
    expect(new Set(seqs).size).toBe(5);

    // A write that rolls back skips its seqs; the next one never reuses them.
    const cycleC = await firstRound(a, 'c', 2);
    await expect(
      a.write(async () => {
        await writeProbes(a, cycleC);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await writeProbes(a, await firstRound(a, 'd', 1));
    const after = await seqsOf(url);
    expect(after).toHaveLength(6);
    expect(after[5]).toBeGreaterThan(Math.max(...seqs) + 2);
  }, 60_000);

  it('a store migrated with numbered nodes hands out seqs past the highest one', async () => {
    const url = await createDatabase('node-seq-migration');
    const out = path.join(dir, 'migrations-pg');
    fs.cpSync(postgresMigrationsFolder(), out, { recursive: true });
    const journalPath = path.join(out, 'meta', '_journal.json');
    const journal = JSON.parse(fs.readFileSync(journalPath, 'utf8')) as { entries: Array<{ tag: string }> };
    const last = journal.entries.findIndex((e) => e.tag.endsWith('_node_seq'));
    expect(last).toBeGreaterThan(0);
    journal.entries = journal.entries.slice(0, last);
    fs.writeFileSync(journalPath, JSON.stringify(journal));
    const client = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await migrate(drizzle(client), { migrationsFolder: out });
      // Numbered before the sequence existed, when the writer took max(seq) + 1.
      await client.unsafe(`
        INSERT INTO balancers (id, name, public_url, node_urls, headers, resolve_dns, interval_ms, timeout_ms,
          legacy_probe_timeout_ms, samples_per_cycle, allow_legacy, audit_legacy, legacy_versions, created_at,
          updated_at)
          VALUES ('bal_old', 'old', 'http://127.0.0.1:9/old', '[]', '{}', false, 30000, 5000, 2000, 0, false, false,
            '[]', 1, 1);
        INSERT INTO nodes (id, balancer_id, key, seq, origin, url, created_at, last_seen_at)
          VALUES ('nod_old', 'bal_old', 'listed:http://127.0.0.1:9/old', 41, 'listed', 'http://127.0.0.1:9/old', 1, 1);`);
    } finally {
      await client.end({ timeout: 5 });
    }
    const store = await openStore(url, { settings: processSettings() });
    stores.push(store);
    await writeProbes(store, await firstRound(store, 'new', 2));
    expect(await seqsOf(url)).toEqual([41, 42, 43]);
  });
});
