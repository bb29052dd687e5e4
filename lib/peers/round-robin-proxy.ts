// A small reverse proxy on loopback that spreads requests round-robin over MCP endpoints, like a load
// balancer without affinity, so tests and the demo fleet can sample "the public URL" of a real fleet.
import http from 'node:http';
import type { Socket } from 'node:net';

export interface RoundRobinProxyOptions {
  /** Upstream MCP endpoint URLs (http, loopback), e.g. http://127.0.0.1:41234/mcp */
  upstreams: string[];
  /** Loopback address to bind (127.0.0.1 by default). */
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Response header naming the upstream (`host:port`) that answered; `x-served-by` by default. */
  servedByHeader?: string;
  /** How long to wait for an upstream's response headers before answering 504 (30 s by default). */
  upstreamTimeoutMs?: number;
}

export interface RoundRobinProxy {
  /** The proxy's MCP endpoint, e.g. http://127.0.0.1:40000/mcp */
  url: string;
  host: string;
  port: number;
  /** Replaces the rotation; the next request goes to the first URL. Throws (changing nothing) on a bad URL. */
  setUpstreams(urls: string[]): void;
  /** The current rotation, as given. */
  upstreams(): string[];
  /** Closes the listener and every open connection, in both directions. */
  stop(): Promise<void>;
}

/** The endpoint path the proxy publishes; requests for it go to each upstream's own path. */
const ENDPOINT_PATH = '/mcp';

// Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection and are never forwarded.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

const MAX_SESSIONS = 10_000;

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

interface Upstream {
  url: URL;
  /** `host:port` as it appears in the served-by header. */
  label: string;
}

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

function parseUpstreams(urls: string[]): Upstream[] {
  return urls.map((raw) => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new TypeError(`upstream '${raw}' is not a URL`);
    }
    if (url.protocol !== 'http:') throw new TypeError(`upstream '${raw}' must be an http:// URL`);
    if (!isLoopbackHost(url.hostname)) throw new TypeError(`upstream '${raw}' must be on loopback`);
    const port = url.port || '80';
    return { url, label: `${url.hostname}:${port}` };
  });
}

/** Starts the proxy and resolves once it listens. */
export async function startRoundRobinProxy(options: RoundRobinProxyOptions): Promise<RoundRobinProxy> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host)) throw new TypeError(`host '${host}' is not a loopback address`);
  const servedByHeader = (options.servedByHeader ?? 'x-served-by').toLowerCase();
  if (!HEADER_NAME.test(servedByHeader)) throw new TypeError(`'${servedByHeader}' is not a header name`);
  const upstreamTimeoutMs = options.upstreamTimeoutMs ?? 30_000;

  let rotation = parseUpstreams(options.upstreams);
  let next = 0;
  // Session affinity: a legacy session lives on the node that minted it, so requests naming it go there
  // (without advancing the rotation), as a balancer with session stickiness would route them.
  const sessions = new Map<string, Upstream>();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const sockets = new Set<Socket>();

  function rememberSession(id: string, upstream: Upstream): void {
    // Sessions a client never DELETEs would pile up; forget the oldest (a Map iterates in insertion order).
    if (sessions.size >= MAX_SESSIONS) {
      const oldest = sessions.keys().next();
      if (!oldest.done) sessions.delete(oldest.value);
    }
    sessions.set(id, upstream);
  }

  function pickUpstream(sessionId: string | undefined): Upstream | undefined {
    const sticky = sessionId ? sessions.get(sessionId) : undefined;
    if (sticky) return sticky;
    if (rotation.length === 0) return undefined;
    const chosen = rotation[next % rotation.length];
    next = (next + 1) % rotation.length;
    return chosen;
  }

  function forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    const sessionHeader = req.headers['mcp-session-id'];
    const sessionId = typeof sessionHeader === 'string' ? sessionHeader : undefined;
    const upstream = pickUpstream(sessionId);
    if (!upstream) {
      sendError(res, 503, { error: 'no upstreams configured' });
      req.resume();
      return;
    }
    const incoming = new URL(req.url ?? '/', 'http://proxy.invalid');
    const path =
      incoming.pathname === ENDPOINT_PATH
        ? `${upstream.url.pathname}${incoming.search || upstream.url.search}`
        : `${incoming.pathname}${incoming.search}`;

    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    headers.host = upstream.url.host;
    headers['x-forwarded-host'] = req.headers.host ?? '';
    headers['x-forwarded-for'] = req.socket.remoteAddress ?? '';
    headers['x-forwarded-proto'] = 'http';

    const upstreamReq = http.request({
      agent,
      host: upstream.url.hostname.replace(/^\[|\]$/g, ''),
      port: upstream.url.port || 80,
      method: req.method,
      path,
      headers,
      timeout: upstreamTimeoutMs,
    });
    let answered = false;

    upstreamReq.on('response', (upstreamRes) => {
      answered = true;
      const minted = upstreamRes.headers['mcp-session-id'];
      if (typeof minted === 'string' && minted !== sessionId) rememberSession(minted, upstream);
      if (req.method === 'DELETE' && sessionId && (upstreamRes.statusCode ?? 500) < 300) {
        sessions.delete(sessionId);
      }
      const outHeaders: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(upstreamRes.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name)) outHeaders[name] = value;
      }
      outHeaders[servedByHeader] = upstream.label;
      res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.statusMessage, outHeaders);
      // Each chunk goes out as it arrives, so SSE events reach the client while the stream is open.
      res.flushHeaders();
      upstreamRes.pipe(res);
      upstreamRes.on('error', () => res.destroy());
      upstreamRes.on('aborted', () => res.destroy());
    });
    upstreamReq.on('timeout', () => {
      upstreamReq.destroy(new Error(`no response within ${upstreamTimeoutMs} ms`));
    });
    upstreamReq.on('error', (err: NodeJS.ErrnoException) => {
      if (answered || res.headersSent) {
        res.destroy();
        return;
      }
      const timedOut = /no response within/.test(err.message);
      res.setHeader(servedByHeader, upstream.label);
      sendError(res, timedOut ? 504 : 502, {
        error: timedOut ? 'upstream timed out' : 'upstream unavailable',
        upstream: upstream.label,
        detail: err.code ?? err.message,
      });
    });
    // The client went away before the exchange ended: stop the upstream exchange too.
    res.on('close', () => {
      if (!res.writableFinished) upstreamReq.destroy();
    });
    req.pipe(upstreamReq);
  }

  const server = http.createServer(forward);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}${ENDPOINT_PATH}`;

  return {
    url,
    host,
    port,
    setUpstreams(urls: string[]) {
      const parsed = parseUpstreams(urls);
      rotation = parsed;
      next = 0;
    },
    upstreams: () => rotation.map((u) => u.url.href),
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        agent.destroy();
      }),
  };
}

function sendError(res: http.ServerResponse, status: number, body: Record<string, string>): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
