// Starts the built dashboard (`next start`) on a free loopback port with its own temporary database, the
// poller on and loopback targets allowed, and stops it by PID.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { stopChild } from '@/lib/peers/spawn';

const require = createRequire(import.meta.url);

export interface RunningApp {
  url: string;
  pid: number;
  dbFile: string;
  /** Server output so far, for failure messages. */
  log(): string;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

async function waitReady(
  url: string,
  child: ChildProcess,
  log: () => string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`next start exited with ${child.exitCode}:\n${log()}`);
    try {
      const res = await fetch(`${url}/api/v1/session`, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`next start was not ready within ${timeoutMs} ms:\n${log()}`);
}

/** `port`: one the caller picked (with freePort) because something else must know the URL first. */
export async function startApp(
  extraEnv: Record<string, string> = {},
  opts: { port?: number } = {},
): Promise<RunningApp> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-e2e-'));
  const dbFile = path.join(dir, 'erawatch.db');
  const port = opts.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    process.execPath,
    [require.resolve('next/dist/bin/next'), 'start', '-H', '127.0.0.1', '-p', String(port)],
    {
      cwd: process.cwd(),
      env: {
        ...process.env,
        NEXT_TELEMETRY_DISABLED: '1',
        ERAWATCH_DB: dbFile,
        ERAWATCH_ALLOW_LOOPBACK: '1',
        ERAWATCH_UI_REFRESH_MS: '1000',
        ...extraEnv,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  const keep = (chunk: Buffer) => {
    out = (out + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const log = () => out;
  const stop = async () => {
    await stopChild(child);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitReady(url, child, log, 60_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, pid: child.pid ?? -1, dbFile, log, stop };
}

/** A write through the REST API as the dashboard makes it (same-origin, local mode). */
export async function apiPost(app: RunningApp, p: string, body: unknown): Promise<Response> {
  return fetch(`${app.url}${p}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: app.url },
    body: JSON.stringify(body),
  });
}

export function screenshotPath(name: string): string {
  const dir = path.join(process.cwd(), 'test-results', 'screenshots');
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, `${name}.png`);
}
