// A loopback front door that routes by the client's source address, as geo-routing does: each source address
// (127.0.0.2, 127.0.0.3, …) is sent to its own upstream (e.g. a round-robin proxy over one pool of real
// peers). Counts requests per source, so a test can wait for each region's probes to arrive.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface SourceRoutingProxy {
  url: string;
  /** Requests seen from each source address, routed or not. */
  seen(source: string): number;
  close(): Promise<void>;
}

/** `routes` maps a source address to an upstream MCP URL; other sources get 403. */
export async function startSourceRoutingProxy(routes: Record<string, string>): Promise<SourceRoutingProxy> {
  const counts = new Map<string, number>();
  const sockets = new Set<Socket>();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const server = http.createServer((req, res) => {
    const source = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    counts.set(source, (counts.get(source) ?? 0) + 1);
    const target = routes[source];
    if (!target) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end(`no route for ${source}\n`);
      req.resume();
      return;
    }
    const upstream = new URL(target);
    const headers = { ...req.headers, host: upstream.host };
    delete headers.connection;
    const out = http.request(
      {
        agent,
        host: upstream.hostname,
        port: upstream.port,
        path: upstream.pathname,
        method: req.method,
        headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.flushHeaders();
        answer.pipe(res);
      },
    );
    out.once('error', () => res.destroy());
    res.once('close', () => {
      if (!res.writableFinished) out.destroy();
    });
    req.pipe(out);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen: (source) => counts.get(source) ?? 0,
    async close() {
      for (const s of sockets) s.destroy();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
