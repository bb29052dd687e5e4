// The poller as its own process, killed with SIGKILL while it writes: the database must stay intact and
// every transition committed before the kill must still be there, whole.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createBalancer } from '@/lib/balancers';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { openReader, type StoreReader } from '../../support/store';
import { tempStore, waitFor } from './support';

const env = await tempStore('crash');
const peers: RunningPeer[] = [];
const children: ChildProcess[] = [];
const repoRoot = path.resolve(import.meta.dirname, '../../..');

afterAll(async () => {
  for (const c of children)
    if (c.exitCode === null && c.signalCode === null && c.pid) process.kill(c.pid, 'SIGKILL');
  await Promise.all(peers.map((p) => p.stop()));
  await env.cleanup();
});

function spawnPoller(): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(
    process.execPath,
    [path.join(repoRoot, 'bin/erawatch.mjs'), 'poller', '--db', env.store.location],
    {
      cwd: repoRoot,
      env: { ...process.env, ERAWATCH_ALLOW_LOOPBACK: '1', ERAWATCH_POLLER_CONCURRENCY: '8' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

function reader(): Promise<StoreReader> {
  return openReader(env.store.location);
}

async function eventIds(db: StoreReader, type?: string): Promise<string[]> {
  const rows = type
    ? await db.all<{ id: string }>('SELECT id FROM events WHERE type = ?', type)
    : await db.all<{ id: string }>('SELECT id FROM events');
  return rows.map((r) => r.id);
}

/** State, history and events of a transition are one transaction: check they agree for every node. */
async function checkConsistency(db: StoreReader): Promise<void> {
  expect(await db.integrityOk()).toBe(true);
  const mismatched = await db.all(
    `SELECT s.subject_id FROM subject_states s JOIN subject_history h
       ON h.subject_id = s.subject_id AND h.region = s.region AND h.ended_at IS NULL
     WHERE h.fingerprint_key != s.fingerprint_key`,
  );
  expect(mismatched).toEqual([]);
  const openSpans = await db.all(
    `SELECT subject_id, count(*) AS n FROM subject_history WHERE ended_at IS NULL
     GROUP BY subject_id, region HAVING count(*) != 1`,
  );
  expect(openSpans).toEqual([]);
  const outages = await db.all<{ id: string; spans: number; events: number }>(
    `SELECT n.id,
       (SELECT count(*) FROM subject_history h WHERE h.node_id = n.id AND h.fingerprint_key = 'unavailable') AS spans,
       (SELECT count(*) FROM events e WHERE e.node_id = n.id AND e.type = 'node.unavailable') AS events
     FROM nodes n`,
  );
  expect(outages.filter((o) => o.spans !== o.events)).toEqual([]);
}

it('kill -9 mid-batch loses no committed transition; a restart resumes and SIGTERM hands back the poll units', async () => {
  const modern = await startPeer('v2-modern', { name: 'crash-node', version: '2.0.0' });
  const legacy = await startPeer('v1-stateless', { name: 'crash-node', version: '1.0.0' });
  peers.push(modern, legacy);
  for (let b = 0; b < 20; b++) {
    const nodeUrls = Array.from({ length: 10 }, (_, i) => `${i < 5 ? modern.url : legacy.url}?b=${b}&n=${i}`);
    await createBalancer(env.store, {
      name: `crash-${b}`,
      publicUrl: modern.url,
      nodeUrls,
      samplesPerCycle: 0,
      allowLegacy: true,
      // Deadlines a loaded machine meets (a node must answer to be analysed), hence the longer interval;
      // the outages below are refused connections, which need no deadline.
      intervalMs: 16_000,
      timeoutMs: 5_000,
      legacyProbeTimeoutMs: 5_000,
    });
  }

  const first = spawnPoller();
  const db = await reader();
  try {
    await waitFor(
      'every balancer analysed',
      90_000,
      async () => (await eventIds(db, 'balancer.diverged')).length === 20,
    );
    await modern.stop();
    peers.splice(peers.indexOf(modern), 1);
    await waitFor(
      'outages recorded',
      90_000,
      async () => (await eventIds(db, 'node.unavailable')).length >= 100,
    );
    const restarted = await startPeer('v2-modern', {
      port: modern.port,
      name: 'crash-node',
      version: '2.0.0',
    });
    peers.push(restarted);
    await waitFor(
      'recoveries under way',
      90_000,
      async () => (await eventIds(db, 'node.recovered')).length >= 1,
    );
    const committed = await eventIds(db);
    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    expect(first.child.signalCode).toBe('SIGKILL');

    const after = await reader();
    try {
      await checkConsistency(after);
      const present = new Set(await eventIds(after));
      expect(committed.filter((id) => !present.has(id))).toEqual([]);
    } finally {
      await after.close();
    }

    // The dead holder was on this host and its pid is gone: the new process takes its units over and resumes.
    const second = spawnPoller();
    await waitFor('the restarted poller to finish cycles of every unit', 90_000, async () => {
      const [row] = await db.all<{ n: number }>(
        'SELECT count(*) AS n FROM poll_units WHERE pid = ? AND last_cycle_at IS NOT NULL',
        second.child.pid,
      );
      return row?.n === 20;
    });
    await waitFor(
      'every node recovered',
      90_000,
      async () => (await eventIds(db, 'node.recovered')).length >= 100,
    );
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(second.output()).toMatch(/SIGTERM: finishing the running cycles and handing back the poll units/);
    expect(await db.all('SELECT count(*) AS n FROM poll_units WHERE expires_at > 0')).toEqual([{ n: 0 }]);
    // The killed process's presence row simply expires; the stopped one removed its own.
    expect(await db.all('SELECT count(*) AS n FROM poll_workers WHERE pid = ?', second.child.pid)).toEqual([
      { n: 0 },
    ]);
    await checkConsistency(db);
  } finally {
    await db.close();
  }
}, 480_000);
