// Debian's Prometheus 2.42 and promtool for the tests: a throwaway Prometheus on a loopback port with a temp
// config and TSDB directory, stopped by PID; promtool runs; and a bounded poll of Prometheus's query API.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, PollAborted, pollUntil } from './wait';

export const PROMETHEUS_BIN = '/usr/bin/prometheus';
export const PROMTOOL_BIN = '/usr/bin/promtool';

export interface PromtoolResult {
  code: number;
  output: string;
}

/** Runs promtool with `args` (and `stdin`), returning its exit code and combined output. */
export function runPromtool(args: string[], stdin?: string, cwd?: string): PromtoolResult {
  const run = spawnSync(PROMTOOL_BIN, args, {
    input: stdin,
    cwd,
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (run.error) throw run.error;
  return { code: run.status ?? 1, output: `${run.stdout}${run.stderr}` };
}

export interface RunningPrometheus {
  url: string;
  pid: number;
  dir: string;
  /** Prometheus's own log lines so far (for failure messages). */
  log(): string;
  /** An instant query through `GET /api/v1/query`; rejects on a non-success answer. */
  query(promql: string): Promise<PromVectorSample[]>;
  /** `GET /api/v1/targets`: the active targets with their health and last error. */
  targets(): Promise<Array<{ health: string; lastError: string; scrapeUrl: string }>>;
  stop(): Promise<void>;
}

export interface PromVectorSample {
  metric: Record<string, string>;
  value: [number, string];
}

/**
 * Starts Prometheus with `config` (YAML text) written to a temp directory, which also holds the TSDB.
 * `files` are written beside the config first (rule files, credential files), mode 0600.
 */
export async function startPrometheus(
  config: string,
  files: Record<string, string> = {},
): Promise<RunningPrometheus> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-prom-'));
  for (const [name, text] of Object.entries(files)) {
    fs.writeFileSync(path.join(dir, name), text, { mode: 0o600 });
  }
  const configFile = path.join(dir, 'prometheus.yml');
  fs.writeFileSync(configFile, config);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    PROMETHEUS_BIN,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${path.join(dir, 'tsdb')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=info',
    ],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const pid = child.pid;
  if (pid === undefined) throw new Error('prometheus did not start');
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-8000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => {
    gone = true;
  });

  const stop = async () => {
    if (!gone) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
      const killer = setTimeout(() => {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }, 5_000);
      await exited;
      clearTimeout(killer);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };

  const getJson = async (pathname: string): Promise<{ status: string; data: unknown; error?: string }> => {
    const res = await fetch(`${url}${pathname}`, { signal: AbortSignal.timeout(5_000) });
    return (await res.json()) as { status: string; data: unknown; error?: string };
  };

  try {
    await pollUntil(
      'prometheus to be ready',
      60_000,
      async () => {
        if (gone) throw new PollAborted(`prometheus exited:\n${tail}`);
        try {
          const res = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(2_000) });
          await res.body?.cancel();
          return res.status === 200;
        } catch {
          return false;
        }
      },
      { everyMs: 250 },
    );
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    url,
    pid,
    dir,
    log: () => tail,
    async query(promql) {
      const body = await getJson(`/api/v1/query?query=${encodeURIComponent(promql)}`);
      if (body.status !== 'success') throw new Error(`query ${promql} failed: ${body.error ?? 'unknown'}`);
      return (body.data as { result: PromVectorSample[] }).result;
    },
    async targets() {
      const body = await getJson('/api/v1/targets');
      return (body.data as { activeTargets: Array<{ health: string; lastError: string; scrapeUrl: string }> })
        .activeTargets;
    },
    stop,
  };
}
