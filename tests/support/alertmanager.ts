// Starts a real Alertmanager (Debian's prometheus-alertmanager, 0.25) on a loopback port with a temp config
// and storage dir, clustering off, for tests that need the real receiver. Stop it by its PID in afterAll.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, PollAborted, pollUntil } from './wait';

export const ALERTMANAGER_BIN = process.env.ERAWATCH_ALERTMANAGER_BIN ?? '/usr/bin/prometheus-alertmanager';

/** Route everything to a receiver that notifies no one: the tests read the alerts through the API. */
const DEFAULT_CONFIG = `route:
  receiver: blackhole
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: blackhole
`;

/** One alert as `GET /api/v2/alerts` returns it (the fields the tests read; the rest is kept as given). */
export interface GettableAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  updatedAt: string;
  generatorURL?: string;
  fingerprint: string;
  status: { state: string; silencedBy: string[]; inhibitedBy: string[] };
  receivers: Array<{ name: string }>;
}

export interface RunningAlertmanager {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  port: number;
  pid: number;
  /** Alerts Alertmanager holds now (`GET /api/v2/alerts`; resolved ones are not listed). */
  alerts(filter?: string[]): Promise<GettableAlert[]>;
  /** What the process printed, for failure messages. */
  log(): string;
  stop(): Promise<void>;
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

async function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (exited(child)) return true;
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function startOnce(host: string, config: string): Promise<RunningAlertmanager> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-alertmanager-'));
  const configFile = path.join(dir, 'alertmanager.yml');
  fs.writeFileSync(configFile, config);
  const port = await freePort(host);
  const child = spawn(
    ALERTMANAGER_BIN,
    [
      `--config.file=${configFile}`,
      `--storage.path=${path.join(dir, 'data')}`,
      `--web.listen-address=${host}:${port}`,
      '--cluster.listen-address=',
      '--log.level=info',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const url = `http://${host}:${port}`;
  const stop = async () => {
    if (child.pid !== undefined && !exited(child)) {
      process.kill(child.pid, 'SIGTERM');
      if (!(await waitExit(child, 5_000)) && !exited(child)) {
        process.kill(child.pid, 'SIGKILL');
        await waitExit(child, 5_000);
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  // Ready once /-/ready answers 200; bounded (generous for a loaded box), and a process that exits early is reported with its log.
  try {
    await pollUntil('alertmanager to be ready', 60_000, async () => {
      if (exited(child)) throw new PollAborted(`alertmanager exited before it was ready:\n${output}`);
      const res = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(2_000) });
      await res.body?.cancel();
      return res.status === 200;
    });
  } catch (err) {
    await stop();
    throw err instanceof PollAborted ? err : new Error(`${String(err)}:\n${output}`);
  }
  return {
    url,
    port,
    pid: child.pid ?? 0,
    async alerts(filter = []) {
      const qs = filter.map((f) => `filter=${encodeURIComponent(f)}`).join('&');
      const res = await fetch(`${url}/api/v2/alerts${qs ? `?${qs}` : ''}`);
      if (res.status !== 200)
        throw new Error(`GET /api/v2/alerts answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as GettableAlert[];
    },
    log: () => output,
    stop,
  };
}

/** Starts Alertmanager; a port taken between picking and binding is retried with another (three tries). */
export async function startAlertmanager(
  opts: { host?: string; config?: string } = {},
): Promise<RunningAlertmanager> {
  const host = opts.host ?? '127.0.0.1';
  let last: unknown = null;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(host, opts.config ?? DEFAULT_CONFIG);
    } catch (err) {
      last = err;
      if (!(err instanceof Error && /address already in use/.test(err.message))) throw err;
    }
  }
  throw last instanceof Error ? last : new Error(String(last));
}
