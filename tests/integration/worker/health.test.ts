// `erawatch worker --health-port`: what the worker Deployment's liveness and readiness probes ask. A real
// worker process on a real SQLite file: /healthz and /readyz answer 200 while it runs; when its database file
// is removed under it, /readyz says 503 with the cause while /healthz stays 200 (a restart would not bring
// the file back); SIGTERM still stops it with 0. A bad or taken port is refused.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, pollUntil } from '../../support/wait';

const root = path.resolve(import.meta.dirname, '../../..');
const bin = path.join(root, 'bin', 'erawatch.mjs');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-health-'));
const children = new Set<ChildProcess>();

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

function env(db: string): NodeJS.ProcessEnv {
  return { ...process.env, ERAWATCH_DB: db, ERAWATCH_CONFIG: path.join(dir, 'absent.yaml') };
}

async function get(port: number, p: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${p}`);
  return { status: res.status, body: (await res.text()).trim() };
}

describe('erawatch worker --health-port', () => {
  it('answers liveness and readiness, and readiness follows the store', async () => {
    const db = path.join(dir, 'worker.db');
    const port = await freePort();
    const child = spawn(process.execPath, [bin, 'worker', '--roles', 'poll', '--health-port', String(port)], {
      cwd: dir,
      env: env(db),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await pollUntil('the health port', 60_000, () => out.includes(`health on port ${port}`));

    expect(await get(port, '/healthz')).toEqual({ status: 200, body: 'ok' });
    expect(await get(port, '/readyz')).toEqual({ status: 200, body: 'ready' });
    expect((await get(port, '/metrics')).status).toBe(404);
    const post = await fetch(`http://127.0.0.1:${port}/healthz`, { method: 'POST' });
    expect(post.status).toBe(405);

    fs.rmSync(db);
    expect(await get(port, '/readyz')).toEqual({ status: 503, body: 'the database file was removed' });
    expect(await get(port, '/healthz')).toEqual({ status: 200, body: 'ok' });

    child.kill('SIGTERM');
    expect(await exited, out).toBe(0);
    children.delete(child);
    expect(out).toContain('[worker] stopped');
  });

  it('refuses a bad port with usage, and a taken one with exit 1', async () => {
    const bad = spawnSync(process.execPath, [bin, 'worker', '--health-port', '70000'], {
      cwd: dir,
      env: env(path.join(dir, 'bad.db')),
      encoding: 'utf8',
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--health-port must be a port from 1 to 65535, got '70000'");

    const holder = http.createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => holder.listen(port, '0.0.0.0', resolve));
    try {
      const taken = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(
          process.execPath,
          [bin, 'worker', '--roles', 'poll', '--health-port', String(port)],
          {
            cwd: dir,
            env: env(path.join(dir, 'taken.db')),
            stdio: ['ignore', 'ignore', 'pipe'],
          },
        );
        children.add(child);
        let stderr = '';
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        child.once('exit', (code) => {
          children.delete(child);
          resolve({ code, stderr });
        });
      });
      expect(taken.code, taken.stderr).toBe(1);
      expect(taken.stderr).toContain(`cannot listen on --health-port ${port}`);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});
