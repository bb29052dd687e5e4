// The migration to one subject design on PostgreSQL: a database created at the migration before it, with
// node and stdio target rows, keeps them after the store opens and migrates it. A real throwaway cluster.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import { afterAll, expect, it } from 'vitest';
import { openPostgres, postgresMigrationsFolder } from '@/db/engines/postgres';
import { createDatabase, describePostgres, stopSharedCluster } from '../../support/postgres';

/** The last PostgreSQL migration with separate node and stdio target state tables. */
const BEFORE_SUBJECTS = '0002_curved_onslaught';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-subjects-pg-'));

afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await stopSharedCluster();
});

function migrationsUpTo(lastTag: string): string {
  const out = path.join(dir, 'migrations-pg');
  fs.cpSync(postgresMigrationsFolder(), out, { recursive: true });
  const journalPath = path.join(out, 'meta', '_journal.json');
  const journal = JSON.parse(fs.readFileSync(journalPath, 'utf8')) as { entries: Array<{ tag: string }> };
  const last = journal.entries.findIndex((e) => e.tag === lastTag);
  expect(last).toBeGreaterThanOrEqual(0);
  journal.entries = journal.entries.slice(0, last + 1);
  fs.writeFileSync(journalPath, JSON.stringify(journal));
  return out;
}

const stateCols = `verdict, verdict_digest, fingerprint_key, last_available_key, client_era, reason, probed_at,
  duration_ms, fingerprint_since, probes, failures, consecutive_failures`;
const historyCols = `fingerprint_key, client_era, reason, negotiated_version, served_eras, is_change, started_at,
  ended_at, probes, failures`;

describePostgres('the migration to one subject design (PostgreSQL)', () => {
  it('keeps the states and spans of nodes and stdio targets stored before it', async () => {
    const url = await createDatabase('subjects-migration');
    const t0 = 1_780_000_000_000;
    const verdict = (u: string, at: number) =>
      JSON.stringify({
        url: u,
        verdict: 'modern',
        reason: 'discover_result',
        negotiatedVersion: '2026-07-28',
        supported: ['2026-07-28'],
        servedEras: 'modern-only',
        serverInfo: { name: 'srv', version: '1' },
        cache: null,
        initializeSent: false,
        anomaly: null,
        evidence: [],
        probedAt: at,
        durationMs: 4,
        address: '127.0.0.1',
        servedBy: null,
      });
    const client = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await migrate(drizzle(client), { migrationsFolder: migrationsUpTo(BEFORE_SUBJECTS) });
      await client.unsafe(`
        INSERT INTO balancers (id, name, public_url, node_urls, headers, resolve_dns, interval_ms, timeout_ms,
          legacy_probe_timeout_ms, samples_per_cycle, allow_legacy, audit_legacy, legacy_versions, created_at,
          updated_at)
          VALUES ('bal_1', 'old', 'http://127.0.0.1:1/mcp', '[]', '{}', false, 30000, 5000, 2000, 0, false, false,
            '[]', ${t0}, ${t0});
        INSERT INTO nodes (id, balancer_id, key, seq, origin, url, address, served_by, created_at, last_seen_at)
          VALUES ('nod_1', 'bal_1', 'listed:a', 1, 'listed', 'http://127.0.0.1:1/mcp', NULL, NULL, ${t0}, ${t0});
        INSERT INTO stdio_targets (id, name, command, args, env, env_templates, cwd, allow_legacy, audit_legacy,
          legacy_versions, interval_ms, timeout_ms, legacy_probe_timeout_ms, created_at, updated_at)
          VALUES ('sto_1', 'srv', 'node', '["srv.js"]', '{}', '{}', '/tmp', false, false, '[]', 60000, 5000, 2000,
            ${t0}, ${t0});
        INSERT INTO node_states (node_id, ${stateCols}) VALUES ('nod_1',
          '${verdict('http://127.0.0.1:1/mcp', t0 + 60_000)}', 'd1', 'fp-b', 'fp-b', 'modern', 'discover_result',
          ${t0 + 60_000}, 4, ${t0 + 60_000}, 7, 1, 0);
        INSERT INTO node_history (node_id, ${historyCols}) VALUES
          ('nod_1', 'fp-a', 'modern', 'discover_result', '2026-07-28', 'modern-only', false, ${t0}, ${t0 + 60_000},
            3, 0),
          ('nod_1', 'fp-b', 'modern', 'discover_result', '2026-07-28', 'modern-only', true, ${t0 + 60_000}, NULL,
            NULL, NULL);
        INSERT INTO stdio_target_states (target_id, ${stateCols}) VALUES ('sto_1',
          '${verdict('stdio://srv', t0 + 30_000)}', 'd2', 'fp-s', 'fp-s', 'modern', 'discover_result', ${t0 + 30_000},
          4, ${t0}, 5, 2, 1);
        INSERT INTO stdio_target_history (target_id, ${historyCols}) VALUES
          ('sto_1', 'fp-s', 'modern', 'discover_result', '2026-07-28', 'modern-only', false, ${t0}, NULL, NULL, NULL);
      `);
    } finally {
      await client.end({ timeout: 5 });
    }

    // Opening the store applies the rest of db/migrations-pg.
    const store = await openPostgres(url);
    await store.close();
    const check = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const tables = await check<Array<{ name: string }>>`
        SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'`;
      const names = tables.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['subject_states', 'subject_history']));
      for (const gone of ['node_states', 'node_history', 'stdio_target_states', 'stdio_target_history'])
        expect(names).not.toContain(gone);
      const states = await check<Array<Record<string, unknown>>>`
        SELECT s.subject_id, s.region, kind, node_id, target_id, fingerprint_key, k.probes, k.failures,
          k.consecutive_failures, verdict->>'url' AS url
        FROM subject_states s JOIN subject_ticks k ON k.subject_id = s.subject_id AND k.region = s.region
        ORDER BY kind`;
      expect(states).toEqual([
        expect.objectContaining({
          subject_id: 'nod_1',
          region: 'default',
          kind: 'node',
          node_id: 'nod_1',
          target_id: null,
          fingerprint_key: 'fp-b',
          probes: 7,
          failures: 1,
          url: 'http://127.0.0.1:1/mcp',
        }),
        expect.objectContaining({
          subject_id: 'sto_1',
          region: 'default',
          kind: 'stdio',
          node_id: null,
          target_id: 'sto_1',
          probes: 5,
          failures: 2,
          consecutive_failures: 1,
          url: 'stdio://srv',
        }),
      ]);
      const spans = await check<Array<{ id: string; kind: string; key: string; change: boolean }>>`
        SELECT id::text AS id, kind, fingerprint_key AS key, is_change AS change
        FROM subject_history ORDER BY id`;
      expect(spans.map((h) => [h.kind, h.key, h.change])).toEqual([
        ['node', 'fp-a', false],
        ['node', 'fp-b', true],
        ['stdio', 'fp-s', false],
      ]);
      // New spans continue after the copied ids, and the copied rows still cascade on delete.
      const [next] = await check<Array<{ id: string }>>`
        INSERT INTO subject_history (subject_id, kind, target_id, fingerprint_key, client_era, reason,
          served_eras, started_at) VALUES ('sto_1', 'stdio', 'sto_1', 'fp-t', 'modern', 'r', 'modern-only', 1)
        RETURNING id::text AS id`;
      expect(Number(next?.id)).toBeGreaterThan(Math.max(...spans.map((h) => Number(h.id))));
      await check`DELETE FROM balancers WHERE id = 'bal_1'`;
      await check`DELETE FROM stdio_targets WHERE id = 'sto_1'`;
      const [left] = await check<Array<{ n: number }>>`
        SELECT ((SELECT count(*) FROM subject_states) + (SELECT count(*) FROM subject_history))::int AS n`;
      expect(left?.n).toBe(0);
    } finally {
      await check.end({ timeout: 5 });
    }
  });
});
