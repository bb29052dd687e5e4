// The fake fleet the poller and API benchmarks probe: each node answers as modern, dual-era or legacy by its path.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface FleetProbes {
  /** Probes that started while another request to the same node was in flight. */
  overlaps: number;
  /** Node number → start times (epoch ms) of its probes. */
  times: Record<string, number[]>;
}

export interface FakeFleet {
  port: number;
  pid: number;
  /** `probes` and `overlaps` stay 0 unless tracking. */
  stats(): Promise<{ requests: number; cpuMicros: number; probes: number; overlaps: number }>;
  /** With `track`: every probe's start time per node from `fromMs` on (epoch ms), and the overlaps. */
  probes(fromMs: number): Promise<FleetProbes>;
  stop(): void;
}

/**
 * Starts the lightweight loopback fleet (bench/support/fake-fleet.mjs) in its own process; `track` makes it
 * keep every probe's start time per node.
 */
export async function startFakeFleet(options: { track?: boolean } = {}): Promise<FakeFleet> {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fake-fleet.mjs');
  const child = spawn(process.execPath, [script, ...(options.track ? ['--track'] : [])], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('fake fleet did not start within 10 s')), 10_000);
    child.stdout?.on('data', (d: Buffer) => {
      const m = /listening (\d+)/.exec(d.toString());
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => reject(new Error(`fake fleet exited (${code})`)));
  });
  return {
    port,
    pid: child.pid ?? -1,
    async stats() {
      const res = await fetch(`http://127.0.0.1:${port}/__stats`);
      return (await res.json()) as { requests: number; cpuMicros: number; probes: number; overlaps: number };
    },
    async probes(fromMs) {
      const res = await fetch(`http://127.0.0.1:${port}/__probes?from=${fromMs}`);
      return (await res.json()) as FleetProbes;
    },
    stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
    },
  };
}
