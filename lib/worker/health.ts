// `erawatch worker --health-port N`: a worker has no web server, so a supervisor (the kubelet's liveness and
// readiness probes) asks this one. /healthz answers 200 while the process runs its roles and its event loop
// turns (a wedged loop answers nothing, and the probe times out); /readyz answers 200 when the store also
// answers within 2 s (and is still the file it opened), else 503. Plain text, no names or addresses; every
// other path is 404. Nothing here reads a request body.
import http from 'node:http';
import type { Store } from '@/db/index';
import { pingStore } from '@/db/queries/heartbeats';

export const HEALTH_DEADLINE_MS = 2_000;

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

export interface HealthOptions {
  host: string;
  port: number;
  store: Store;
  /** False once the worker is stopping: both paths answer 503 so no new work is sent its way. */
  running(): boolean;
}

async function storeAnswers(store: Store): Promise<string | null> {
  const gone = store.unavailable();
  if (gone !== null) return gone;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<{ ok: false }>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false }), HEALTH_DEADLINE_MS);
  });
  try {
    const ping = await Promise.race([pingStore(store), late]);
    return ping.ok ? null : 'the store does not answer';
  } finally {
    clearTimeout(timer);
  }
}

export function startHealthServer(options: HealthOptions): Promise<HealthServer> {
  const server = http.createServer((req, res) => {
    const reply = (status: number, text: string) => {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end(`${text}\n`);
    };
    const url = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return reply(405, 'method not allowed');
    if (url === '/healthz') return options.running() ? reply(200, 'ok') : reply(503, 'stopping');
    if (url === '/readyz') {
      if (!options.running()) return reply(503, 'stopping');
      void storeAnswers(options.store).then(
        (problem) => (problem === null ? reply(200, 'ready') : reply(503, problem)),
        () => reply(503, 'the store does not answer'),
      );
      return;
    }
    reply(404, 'not found');
  });
  // A probe's request is small; a client that holds its socket open costs nothing for long.
  server.requestTimeout = 5_000;
  server.headersTimeout = 5_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve({
        port: typeof address === 'object' && address ? address.port : options.port,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
