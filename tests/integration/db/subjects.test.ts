// Nodes and stdio targets are one probed subject: one state and one history table, one writer, one reader,
// one pruning path. Real SQLite files in a temp dir, including one created at the migration before the merge.
import { processSettings } from '@/lib/settings';
import { analysisDigest } from '@/lib/rollout/digest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, sqliteOf, type Store } from '@/db';
import { migrationsFolder } from '@/db/engines/sqlite';
import { deleteBalancer } from '@/db/queries/balancers';
import { createBalancer } from '@/lib/balancers';
import { getNode, getNodeHistory } from '@/db/queries/nodes';
import { getStdioTarget, upsertStdioTarget } from '@/db/queries/stdio-targets';
import { pruneOldData, writeProbes } from '@/db/queries/subjects';
import type { Verdict } from '@/lib/probe/types';
import { analyzeCycle } from '@/lib/rollout';

let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-subjects-'));
});

afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function verdict(url: string, era: 'modern' | 'unavailable', at: number): Verdict {
  const modern = era === 'modern';
  return {
    url,
    verdict: era,
    reason: modern ? 'discover_result' : 'timeout',
    negotiatedVersion: modern ? '2026-07-28' : null,
    supported: modern ? ['2026-07-28'] : [],
    servedEras: modern ? 'modern-only' : 'unknown',
    serverInfo: modern ? { name: 'srv', version: '1' } : null,
    cache: null,
    initializeSent: false,
    anomaly: null,
    evidence: [],
    probedAt: at,
    durationMs: 4,
    address: '127.0.0.1',
    servedBy: null,
  };
}

/** A copy of the committed migrations up to and including the one tagged `lastTag`. */
function migrationsUpTo(lastTag: string): string {
  const src = migrationsFolder();
  const out = path.join(dir, 'migrations');
  fs.cpSync(src, out, { recursive: true });
  const journalPath = path.join(out, 'meta', '_journal.json');
  const journal = JSON.parse(fs.readFileSync(journalPath, 'utf8')) as { entries: Array<{ tag: string }> };
  const last = journal.entries.findIndex((e) => e.tag === lastTag);
  expect(last).toBeGreaterThanOrEqual(0);
  journal.entries = journal.entries.slice(0, last + 1);
  fs.writeFileSync(journalPath, JSON.stringify(journal));
  return out;
}

/** The last migration with separate node and stdio target state tables. */
const BEFORE_SUBJECTS = '0014_youthful_timeslip';

const stateCols = `verdict, verdict_digest, fingerprint_key, last_available_key, client_era, reason, probed_at,
  duration_ms, fingerprint_since, probes, failures, consecutive_failures`;
const historyCols = `fingerprint_key, client_era, reason, negotiated_version, served_eras, is_change, started_at,
  ended_at, probes, failures`;

describe('the migration to one subject design', () => {
  it('keeps the states and spans of nodes and stdio targets stored before it', async () => {
    const file = path.join(dir, 'old.db');
    const old = new Database(file);
    old.pragma('foreign_keys = ON');
    migrate(drizzle(old), { migrationsFolder: migrationsUpTo(BEFORE_SUBJECTS) });
    const t0 = 1_780_000_000_000;
    const nodeVerdict = JSON.stringify(verdict('http://127.0.0.1:1/mcp', 'modern', t0 + 60_000));
    const stdioVerdict = JSON.stringify(verdict('stdio://srv', 'modern', t0 + 30_000));
    old.exec(`
      INSERT INTO balancers (id, name, public_url, node_urls, headers, resolve_dns, interval_ms, timeout_ms,
        legacy_probe_timeout_ms, samples_per_cycle, allow_legacy, audit_legacy, legacy_versions, created_at, updated_at)
        VALUES ('bal_1', 'old', 'http://127.0.0.1:1/mcp', '[]', '{}', 0, 30000, 5000, 2000, 0, 0, 0, '[]', ${t0}, ${t0});
      INSERT INTO nodes (id, balancer_id, key, seq, origin, url, address, served_by, created_at, last_seen_at)
        VALUES ('nod_1', 'bal_1', 'listed:a', 1, 'listed', 'http://127.0.0.1:1/mcp', NULL, NULL, ${t0}, ${t0});
      INSERT INTO stdio_targets (id, name, command, args, env, env_templates, cwd, allow_legacy, audit_legacy,
        legacy_versions, interval_ms, timeout_ms, legacy_probe_timeout_ms, created_at, updated_at)
        VALUES ('sto_1', 'srv', 'node', '["srv.js"]', '{}', '{}', '/tmp', 0, 0, '[]', 60000, 5000, 2000, ${t0}, ${t0});
      INSERT INTO node_states (node_id, ${stateCols}) VALUES ('nod_1', '${nodeVerdict}', 'd1', 'fp-b', 'fp-b',
        'modern', 'discover_result', ${t0 + 60_000}, 4, ${t0 + 60_000}, 7, 1, 0);
      INSERT INTO node_history (node_id, ${historyCols}) VALUES
        ('nod_1', 'fp-a', 'modern', 'discover_result', '2026-07-28', 'modern-only', 0, ${t0}, ${t0 + 60_000}, 3, 0),
        ('nod_1', 'fp-b', 'modern', 'discover_result', '2026-07-28', 'modern-only', 1, ${t0 + 60_000}, NULL, NULL, NULL);
      INSERT INTO stdio_target_states (target_id, ${stateCols}) VALUES ('sto_1', '${stdioVerdict}', 'd2', 'fp-s',
        'fp-s', 'modern', 'discover_result', ${t0 + 30_000}, 4, ${t0}, 5, 2, 1);
      INSERT INTO stdio_target_history (target_id, ${historyCols}) VALUES
        ('sto_1', 'fp-s', 'modern', 'discover_result', '2026-07-28', 'modern-only', 0, ${t0}, NULL, NULL, NULL);
    `);
    old.close();

    const store = await openStore(file, { settings: processSettings() });
    try {
      const node = await getNode(store, 'nod_1');
      expect(node.state).toMatchObject({
        fingerprintKey: 'fp-b',
        probes: 7,
        failures: 1,
        clientEra: 'modern',
      });
      expect(
        (await getNodeHistory(store, 'nod_1')).map((h) => [h.fingerprintKey, h.isChange, h.nodeId]),
      ).toEqual([
        ['fp-b', true, 'nod_1'],
        ['fp-a', false, 'nod_1'],
      ]);
      const target = await getStdioTarget(store, 'sto_1', 'default');
      expect(target.state).toMatchObject({
        probes: 5,
        failures: 2,
        consecutiveFailures: 1,
        fingerprintSince: t0,
      });
      expect(target.history.map((h) => [h.fingerprintKey, h.endedAt])).toEqual([['fp-s', null]]);
      const tables = sqliteOf(store)
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .all()
        .map((r) => (r as { name: string }).name);
      expect(tables).toEqual(expect.arrayContaining(['subject_states', 'subject_history']));
      for (const gone of ['node_states', 'node_history', 'stdio_target_states', 'stdio_target_history'])
        expect(tables).not.toContain(gone);
      // The copied rows still cascade: deleting the subjects removes their state and spans.
      await deleteBalancer(store, 'bal_1');
      sqliteOf(store).prepare("DELETE FROM stdio_targets WHERE id = 'sto_1'").run();
      const left = sqliteOf(store)
        .prepare('SELECT (SELECT count(*) FROM subject_states) + (SELECT count(*) FROM subject_history) AS n')
        .get();
      expect(left).toEqual({ n: 0 });
    } finally {
      await store.close();
    }
  });
});

describe('one writer, one reader, one pruning path', () => {
  let store: Store;
  beforeEach(async () => {
    store = await openStore(path.join(dir, 'new.db'), { settings: processSettings() });
  });
  afterEach(async () => {
    await store.close();
  });

  const rows = (sql: string) => sqliteOf(store).prepare(sql).all();

  it('writes nodes and stdio targets into the same tables under their region, and prunes both', async () => {
    const at = 1_780_000_000_000;
    const b = await createBalancer(store, { name: 'one', publicUrl: 'http://127.0.0.1:9/mcp', nodeUrls: [] });
    await upsertStdioTarget(
      store,
      {
        name: 'srv',
        command: 'node',
        args: ['srv.js'],
        env: {},
        allowLegacy: false,
        auditLegacy: false,
        legacyVersions: [],
        intervalMs: 60_000,
        timeoutMs: 5_000,
        regions: null,
        legacyProbeTimeoutMs: 2_000,
      },
      {},
      at,
    );
    const [target] = rows('SELECT id FROM stdio_targets') as Array<{ id: string }>;
    const targetId = target?.id ?? '';
    const url = 'http://127.0.0.1:9/mcp';
    const probeNode = async (when: number, era: 'modern' | 'unavailable', prior: boolean) => {
      const v = verdict(url, era, when);
      const analysis = analyzeCycle({
        balancerId: b.id,
        at: when,
        nodes: [{ nodeId: 'nod_x', verdict: v, recentChanges: [] }],
        samples: [],
        window: null,
        gateRevisions: ['2026-07-28'],
      });
      await writeProbes(store, {
        kind: 'node',
        region: 'eu-west',
        balancerId: b.id,
        at: when,
        newNodes: prior
          ? []
          : [{ id: 'nod_x', key: 'listed:x', origin: 'listed', url, address: null, servedBy: null }],
        results: [
          {
            nodeId: 'nod_x',
            seq: null,
            verdict: v,
            fingerprintKey: era === 'modern' ? 'fp-1' : null,
            // What the first probe stored (the reader of another region would not see it).
            prior: prior
              ? {
                  fingerprintKey: 'fp-1',
                  verdictDigest: null,
                  lastAvailableKey: 'fp-1',
                  fingerprintSince: at,
                  probes: 1,
                  failures: 0,
                  consecutiveFailures: 0,
                  lastSeenAt: when,
                  probedAt: when,
                }
              : null,
          },
        ],
        analysis,
        analysisDigest: analysisDigest(analysis),
        events: [],
      });
    };
    const probeTarget = (when: number, era: 'modern' | 'unavailable') =>
      writeProbes(store, {
        kind: 'stdio',
        region: 'eu-west',
        targetId,
        verdict: verdict('stdio://srv', era, when),
        fingerprintKey: era === 'modern' ? 'fp-1' : null,
      });

    await probeNode(at, 'modern', false);
    await probeNode(at + 1_000, 'unavailable', true);
    await probeTarget(at, 'modern');
    await probeTarget(at + 1_000, 'unavailable');

    expect(
      rows('SELECT subject_id, region, kind, node_id, target_id FROM subject_states ORDER BY kind'),
    ).toEqual([
      { subject_id: 'nod_x', region: 'eu-west', kind: 'node', node_id: 'nod_x', target_id: null },
      { subject_id: targetId, region: 'eu-west', kind: 'stdio', node_id: null, target_id: targetId },
    ]);
    expect(
      rows('SELECT kind, fingerprint_key, ended_at FROM subject_history ORDER BY kind, started_at'),
    ).toEqual([
      { kind: 'node', fingerprint_key: 'fp-1', ended_at: at + 1_000 },
      { kind: 'node', fingerprint_key: 'unavailable', ended_at: null },
      { kind: 'stdio', fingerprint_key: 'fp-1', ended_at: at + 1_000 },
      { kind: 'stdio', fingerprint_key: 'unavailable', ended_at: null },
    ]);
    // A node's readers show every region's states, each naming its region; a stdio target's show this
    // process's region (every region runs the same command), so another region's row is not this one's.
    const node = await getNode(store, 'nod_x');
    expect(node.state).toMatchObject({ region: 'eu-west', fingerprintKey: 'unavailable' });
    expect(node.regions?.map((r) => r.region)).toEqual(['eu-west']);
    expect((await getStdioTarget(store, targetId, 'default')).state).toBeNull();

    const pruned = await pruneOldData(store, at + 2_000);
    expect(pruned.history).toBe(2);
    expect(rows('SELECT kind, ended_at FROM subject_history ORDER BY kind')).toEqual([
      { kind: 'node', ended_at: null },
      { kind: 'stdio', ended_at: null },
    ]);
  });
});
