// Starts real MCP SDK servers as child processes on loopback, for tests, benchmarks and the demo fleet.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { childEnvironment } from '@/lib/settings';

export const PEER_KINDS = ['v2-dual', 'v2-modern', 'v1-stateful', 'v1-stateless', 'everything'] as const;
export type PeerKind = (typeof PEER_KINDS)[number];

export interface PeerOptions {
  /** Loopback address to bind (127.0.0.1 by default; any 127.x.y.z works on Linux). */
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** serverInfo.name the peer reports (not for `everything`). */
  name?: string;
  /** serverInfo.version the peer reports (not for `everything`). */
  version?: string;
  /** Tool names the peer registers (not for `everything`); `echo` by default. */
  tools?: string[];
  /**
   * How long the process may take to listen (60 s by default): loading the SDK takes a second alone, and
   * many seconds when a whole fleet starts at once on a busy 2-core machine.
   */
  startTimeoutMs?: number;
}

export interface RunningPeer {
  kind: PeerKind;
  host: string;
  port: number;
  /** The MCP endpoint, e.g. http://127.0.0.1:41234/mcp */
  url: string;
  pid: number;
  /** Requests the server saw (v1: `{method}` per POST; v2: `{era}` per request). Not for `everything`. */
  received(): Promise<Array<{ method?: string | null; era?: string | null; httpMethod?: string }>>;
  /** Replaces the peer's tool catalog, as a new build would (not for `everything`). */
  setTools(names: string[]): Promise<void>;
  stop(): Promise<void>;
}

const serversDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'servers');
const require = createRequire(import.meta.url);

function commandFor(kind: PeerKind, opts: PeerOptions): { args: string[]; env: Record<string, string> } {
  const host = opts.host ?? '127.0.0.1';
  const common = ['--port', String(opts.port ?? 0), '--host', host];
  if (opts.name) common.push('--name', opts.name);
  if (opts.version) common.push('--version', opts.version);
  if (opts.tools) common.push('--tools', opts.tools.join(','));
  switch (kind) {
    case 'v2-dual':
      return { args: [path.join(serversDir, 'v2-http.mjs'), ...common, '--mode', 'dual'], env: {} };
    case 'v2-modern':
      return { args: [path.join(serversDir, 'v2-http.mjs'), ...common, '--mode', 'modern'], env: {} };
    case 'v1-stateful':
      return { args: [path.join(serversDir, 'v1-http.mjs'), ...common, '--mode', 'stateful'], env: {} };
    case 'v1-stateless':
      return { args: [path.join(serversDir, 'v1-http.mjs'), ...common, '--mode', 'stateless'], env: {} };
    case 'everything': {
      const entry = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
      return {
        args: ['--require', path.join(serversDir, 'everything-loopback.cjs'), entry, 'streamableHttp'],
        env: { PORT: String(opts.port ?? 0), ERAWATCH_PEER_HOST: host },
      };
    }
  }
}

/** Starts one peer and resolves once it listens; rejects (and kills the child) if it does not in time. */
export async function startPeer(kind: PeerKind, opts: PeerOptions = {}): Promise<RunningPeer> {
  const host = opts.host ?? '127.0.0.1';
  const { args, env } = commandFor(kind, opts);
  const child = spawn(process.execPath, args, {
    env: childEnvironment(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const port = await waitForPort(child, opts.startTimeoutMs ?? 60_000).catch((err: unknown) => {
    child.kill('SIGKILL');
    throw err;
  });
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}/mcp`;
  const pid = child.pid ?? -1;
  return {
    kind,
    host,
    port,
    url,
    pid,
    async received() {
      const res = await fetch(new URL('/__erawatch/received', url));
      const body = (await res.json()) as { received: Array<{ method?: string | null; era?: string | null }> };
      return body.received;
    },
    async setTools(names: string[]) {
      const res = await fetch(new URL('/__erawatch/tools', url), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ tools: names }),
      });
      if (!res.ok) throw new Error(`setting tools failed: HTTP ${res.status}`);
      await res.text();
    },
    stop: () => stopChild(child),
  };
}

export function waitForPort(child: ChildProcess, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(
      () => reject(new Error(`peer did not start within ${timeoutMs} ms: ${err}`)),
      timeoutMs,
    );
    child.stderr?.on('data', (chunk: Buffer) => {
      err = (err + chunk.toString()).slice(-2000);
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      for (const line of out.split('\n')) {
        const match = /^\{"port":(\d+)\}$/.exec(line.trim());
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(Number(match[1]));
          return;
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`peer exited with code ${code} before listening: ${err}`));
    });
  });
}

/** SIGTERM, then SIGKILL after 3 s; resolves once the process has exited. */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), 3_000);
    child.once('exit', () => {
      clearTimeout(killer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Starts several peers; if any fails, stops the ones already started. */
export async function startPeers(specs: Array<{ kind: PeerKind } & PeerOptions>): Promise<RunningPeer[]> {
  const started: RunningPeer[] = [];
  try {
    for (const spec of specs) started.push(await startPeer(spec.kind, spec));
    return started;
  } catch (err) {
    await Promise.all(started.map((p) => p.stop()));
    throw err;
  }
}
