// `erawatch worker` whose output goes away (`erawatch worker | head -1`, a closed log pipe): with stdout
// closed its lines go on to stderr; with both closed it keeps working quietly, without crashing on EPIPE or
// spinning on failed writes, and SIGTERM still stops it cleanly. The same guard runs for every command
// (`lib/cli/output-guard.ts`, installed by `lib/cli/main.ts`), so serve and demo behave the same.
import { spawn, type ChildProcess, type ChildProcessByStdio } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '@/db';
import { processSettings } from '@/lib/settings';
import { listPollWorkers } from '@/db/queries/units';
import { waitFor } from '../poller/support';

const BIN = path.resolve(__dirname, '../../../bin/erawatch.mjs');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-closed-output-'));
const children: ChildProcess[] = [];
const stores: Store[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await Promise.all(stores.map((s) => s.close()));
  fs.rmSync(dir, { recursive: true, force: true });
});

function startWorker(db: string): {
  child: ChildProcessByStdio<null, Readable, Readable>;
  pid: number;
  exit: Promise<{ code: number | null }>;
} {
  const child = spawn(process.execPath, [BIN, 'worker', '--roles', 'poll'], {
    env: { ...process.env, ERAWATCH_DB: db, ERAWATCH_POLL_LEASE_TTL_MS: '1000' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  if (child.pid === undefined) throw new Error('the worker did not start');
  const pid = child.pid;
  const exit = new Promise<{ code: number | null }>((resolve) =>
    child.once('exit', (code) => resolve({ code })),
  );
  return { child, pid, exit };
}

function firstLine(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const onData = (d: Buffer) => {
      text += d.toString();
      if (text.includes('\n')) {
        stream.off('data', onData);
        resolve(text);
      }
    };
    stream.on('data', onData);
  });
}

/** CPU time (user + system, in clock ticks) the process has used, from /proc. */
function cpuTicks(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

describe('a worker whose output goes away', () => {
  it('with stdout closed, its lines go on to stderr and SIGTERM stops it with 0', async () => {
    const { child, exit } = startWorker(path.join(dir, 'one.db'));
    expect(await firstLine(child.stdout)).toContain('[worker] database');
    child.stdout.destroy();
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.kill('SIGTERM');
    expect(await exit).toEqual({ code: 0 });
    expect(err).toContain('[worker] SIGTERM: finishing the running cycles');
    expect(err).toContain('[worker] stopped');
    expect(err).not.toContain('EPIPE');
  }, 90_000);

  it('with stdout and stderr closed, it keeps working without spinning, and SIGTERM stops it with 0', async () => {
    const db = path.join(dir, 'both.db');
    const { child, pid, exit } = startWorker(db);
    await firstLine(child.stdout);
    child.stdout.destroy();
    child.stderr.destroy();
    const store = await openStore(db, { settings: processSettings() });
    stores.push(store);
    // Its presence is renewed in the store: the process lives on and works with nowhere to write.
    const renewals = async (after: number) =>
      waitFor('a renewed presence', 60_000, async () => {
        if (child.exitCode !== null) throw new Error(`the worker exited with ${child.exitCode}`);
        const me = (await listPollWorkers(store, Date.now())).find((w) => w.pid === pid);
        return me && me.expiresAt > after ? me.expiresAt : null;
      });
    let seen = await renewals(0);
    const ticksBefore = cpuTicks(pid);
    const wallBefore = Date.now();
    for (let i = 0; i < 3; i++) seen = await renewals(seen);
    const ticks = cpuTicks(pid) - ticksBefore;
    const wallTicks = ((Date.now() - wallBefore) / 1000) * 100;
    // Spinning on failed writes took half a core or more; a quiet worker uses next to nothing.
    expect(ticks).toBeLessThan(Math.max(10, wallTicks * 0.3));
    child.kill('SIGTERM');
    expect(await exit).toEqual({ code: 0 });
  }, 120_000);
});
