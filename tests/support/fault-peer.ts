// A small misbehaving MCP endpoint on loopback for the probe's fault tests. Each request is handed to the
// test's handler with its parsed JSON body; every request is recorded so tests can assert what was sent.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface ReceivedRequest {
  httpMethod: string;
  headers: IncomingMessage['headers'];
  /** The parsed JSON body, or null when there was none or it did not parse. */
  body: Record<string, unknown> | null;
}

// The return value is ignored (awaited when a promise), so one-line handlers may return what they call.
export type FaultHandler = (req: ReceivedRequest, res: ServerResponse) => unknown;

export interface FaultPeer {
  url: string;
  port: number;
  received: ReceivedRequest[];
  /** Bytes the handlers wrote to responses (to show a probe stopped reading early). */
  bytesWritten(): number;
  /** TCP connections accepted so far (to show keep-alive reuse). */
  connections(): number;
  close(): Promise<void>;
}

export async function startFaultPeer(handler: FaultHandler, host = '127.0.0.1'): Promise<FaultPeer> {
  const received: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  let written = 0;
  let accepted = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Record<string, unknown> | null = null;
      try {
        const text = Buffer.concat(chunks).toString('utf8');
        body = text ? (JSON.parse(text) as Record<string, unknown>) : null;
      } catch {
        body = null;
      }
      const record = { httpMethod: req.method ?? '', headers: req.headers, body };
      received.push(record);
      const write = res.write.bind(res);
      res.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
        written += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
        return write(chunk, ...rest);
      }) as typeof res.write;
      Promise.resolve(handler(record, res)).catch(() => res.destroy());
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    accepted += 1;
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://${host}:${port}/mcp`,
    port,
    received,
    bytesWritten: () => written,
    connections: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendSse(res: ServerResponse, status: number, events: string[]): void {
  res.writeHead(status, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const event of events) res.write(event);
  res.end();
}

export function rpcError(
  id: unknown,
  code: number,
  message: string,
  data?: unknown,
): Record<string, unknown> {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

export function discoverResult(
  id: unknown,
  supportedVersions: string[] = ['2026-07-28'],
): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    result: {
      supportedVersions,
      capabilities: { tools: {} },
      resultType: 'complete',
      ttlMs: 60_000,
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'fault-peer', version: '9.9.9' } },
    },
  };
}

export function initializeResult(
  id: unknown,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    result: {
      protocolVersion: '2025-11-25',
      capabilities: { tools: {} },
      serverInfo: { name: 'fault-legacy', version: '1.0.0' },
      ...overrides,
    },
  };
}

/** The JSON-RPC method and id of a recorded request. */
export function rpcOf(req: ReceivedRequest): { method: string | null; id: unknown } {
  const method = typeof req.body?.method === 'string' ? req.body.method : null;
  return { method, id: req.body?.id };
}

/** A legacy server that knows no server/discover: 404 -32601 for it, a valid handshake otherwise. */
export function legacyHandler(initialize: (id: unknown) => Record<string, unknown>): FaultHandler {
  return (req, res) => {
    const { method, id } = rpcOf(req);
    if (method === 'server/discover') return sendJson(res, 404, rpcError(id, -32601, 'Method not found'));
    if (method === 'initialize') return sendJson(res, 200, initialize(id));
    res.writeHead(202).end();
  };
}
