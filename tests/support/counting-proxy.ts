// A loopback HTTP proxy in front of a real peer that counts requests in flight, so a test can see two probes
// of one node overlap. Each request is held `holdMs` before it is forwarded, widening the window an overlap
// would need; the count itself is exact.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CountingProxy {
  url: string;
  total(): number;
  inFlight(): number;
  maxInFlight(): number;
  close(): Promise<void>;
}

export async function startCountingProxy(target: string, holdMs: number): Promise<CountingProxy> {
  const upstream = new URL(target);
  let total = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const server = http.createServer((req, res) => {
    total += 1;
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      inFlight -= 1;
    };
    res.once('close', finish);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const timer = setTimeout(() => {
        const out = http.request(
          {
            host: upstream.hostname,
            port: upstream.port,
            path: req.url,
            method: req.method,
            headers: { ...req.headers, host: upstream.host },
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        out.once('error', () => res.destroy());
        out.end(Buffer.concat(chunks));
      }, holdMs);
      res.once('close', () => clearTimeout(timer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    total: () => total,
    inFlight: () => inFlight,
    maxInFlight: () => maxInFlight,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
