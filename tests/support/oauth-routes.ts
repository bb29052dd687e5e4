// A small HTTP server on loopback answering fixed routes, for the probe's OAuth tests: a resource server's
// MCP endpoint and metadata, or an authorization server's metadata and token endpoint, each as hostile as
// a test needs. Every request is recorded (path, headers, body) so a test can show what was, or was not, sent.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';

export interface RouteRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface RouteAnswer {
  status: number;
  headers?: Record<string, string>;
  /** A string is sent as is; anything else as JSON. */
  body?: unknown;
}

export type Route = (req: RouteRequest) => RouteAnswer;

export interface RouteServer {
  /** `http://127.0.0.1:port` (or the host asked for). */
  origin: string;
  port: number;
  received: RouteRequest[];
  hits(path: string): number;
  /** Routes can be added or replaced after start (a test names URLs of servers started later). */
  routes: Record<string, Route>;
  close(): Promise<void>;
}

export async function startRoutes(routes: Record<string, Route>, host = '127.0.0.1'): Promise<RouteServer> {
  const received: RouteRequest[] = [];
  const sockets = new Set<Socket>();
  const table = { ...routes };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const record: RouteRequest = {
        method: req.method ?? '',
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(record);
      const route = table[path];
      const answer: RouteAnswer = route ? route(record) : { status: 404, body: { error: 'not_found' } };
      const text =
        answer.body === undefined
          ? ''
          : typeof answer.body === 'string'
            ? answer.body
            : JSON.stringify(answer.body);
      res.writeHead(answer.status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
        ...answer.headers,
      });
      res.end(text);
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const hostPart = host.includes(':') ? `[${host}]` : host;
  return {
    origin: `http://${hostPart}:${port}`,
    port,
    received,
    routes: table,
    hits: (path) => received.filter((r) => r.path === path).length,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The JSON-RPC id of a recorded request's body, or null. */
export function rpcIdOf(req: RouteRequest): unknown {
  try {
    return (JSON.parse(req.body) as { id?: unknown }).id ?? null;
  } catch {
    return null;
  }
}
