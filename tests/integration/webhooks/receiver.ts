// A real HTTP webhook receiver on loopback whose behaviour is chosen by path.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url(path: string): string;
  received: Received[];
  /** Requests whose answer is still pending (/hang). */
  hanging: http.ServerResponse[];
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const hanging: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      switch (path) {
        case '/ok':
          res.writeHead(204).end();
          return;
        case '/fail':
          res.writeHead(500, { 'content-type': 'text/plain' }).end('boom');
          return;
        case '/gone':
          res.writeHead(410).end();
          return;
        case '/redirect':
          res.writeHead(302, { location: '/ok' }).end();
          return;
        case '/reset':
          req.socket.destroy();
          return;
        case '/slow':
          setTimeout(() => res.writeHead(200).end('ok'), 300);
          return;
        case '/hang':
          hanging.push(res);
          return;
        case '/hang-once':
          if (received.filter((r) => r.path === '/hang-once').length === 1) hanging.push(res);
          else res.writeHead(204).end();
          return;
        default:
          res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    hanging,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
