// The fake fleet the poller and API benchmarks probe: each node answers as modern, dual-era or legacy by its path.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface FleetProbes {
  /** Probes that started while another request to the same node was in flight. */
  overlaps: number;
  /** Node number → start times (epoch ms) of its probes. */
  times: Record<string, number[]>;
}

export interface FleetStats {
  requests: number;
  cpuMicros: number;
  probes: number;
  overlaps: number;
  /** TLS connections accepted and resumed ones (with `tls`). */
  tlsConnections: number;
  tlsResumed: number;
}

export interface FakeFleet {
  port: number;
  /** With `ports`: the listener of each node (node i on nodePorts[i % length]); else empty. */
  nodePorts: number[];
  pid: number;
  /** `probes` and `overlaps` stay 0 unless tracking. */
  stats(): Promise<FleetStats>;
  /** With `track`: every probe's start time per node from `fromMs` on (epoch ms), and the overlaps. */
  probes(fromMs: number): Promise<FleetProbes>;
  stop(): void;
}

/** The certificate and key written to a temporary directory for the fleet process to read. */
function credentialFiles(tls: { cert: string; key: string }): [string, string] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-fleet-tls-'));
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  fs.writeFileSync(cert, tls.cert);
  fs.writeFileSync(key, tls.key, { mode: 0o600 });
  // The fleet reads them at start; the directory goes when this process exits.
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return [cert, key];
}

/**
 * Starts the lightweight loopback fleet (bench/support/fake-fleet.mjs) in its own process; `track` makes it
 * keep every probe's start time per node.
 */
export async function startFakeFleet(
  options: {
    track?: boolean;
    /** Serve the nodes over HTTPS with this certificate (the control routes stay plain HTTP). */
    tls?: { cert: string; key: string };
    /** The server's idle keep-alive timeout; null: none. Default 60 s. */
    keepAliveMs?: number | null;
    /** Listeners, one per node (node i on the i-th, modulo their number): each node its own origin. */
    ports?: number;
  } = {},
): Promise<FakeFleet> {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fake-fleet.mjs');
  const args = [
    script,
    ...(options.track ? ['--track'] : []),
    ...(options.tls ? ['--tls', ...credentialFiles(options.tls)] : []),
    ...(options.keepAliveMs !== undefined ? ['--keep-alive-timeout', String(options.keepAliveMs ?? 0)] : []),
    ...(options.ports ? ['--ports', String(options.ports)] : []),
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const [port, controlPort] = await new Promise<[number, number]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('fake fleet did not start within 60 s')), 60_000);
    child.stdout?.on('data', (d: Buffer) => {
      const m = /listening (\d+) control (\d+)/.exec(d.toString());
      if (m) {
        clearTimeout(timer);
        resolve([Number(m[1]), Number(m[2])]);
      }
    });
    child.once('exit', (code) => reject(new Error(`fake fleet exited (${code})`)));
  });
  const nodePorts = options.ports
    ? ((await (await fetch(`http://127.0.0.1:${controlPort}/__ports`)).json()) as { ports: number[] }).ports
    : [];
  return {
    port,
    nodePorts,
    pid: child.pid ?? -1,
    async stats() {
      const res = await fetch(`http://127.0.0.1:${controlPort}/__stats`);
      return (await res.json()) as FleetStats;
    },
    async probes(fromMs) {
      const res = await fetch(`http://127.0.0.1:${controlPort}/__probes?from=${fromMs}`);
      return (await res.json()) as FleetProbes;
    },
    stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
    },
  };
}
