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
    const upstreamReq = http.request({
      agent,
      host: upstream.url.hostname.replace(/^\[|\]$/g, ''),
      port: upstream.url.port || 80,
      method: req.method,
      path: upstreamPath(req, upstream),
      headers: forwardedHeaders(req, upstream),
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
      relay(upstreamRes, res, servedByHeader, upstream.label);
    });
    upstreamReq.on('timeout', () => {
      upstreamReq.destroy(new Error(`no response within ${upstreamTimeoutMs} ms`));
    });
    upstreamReq.on('error', (err: NodeJS.ErrnoException) =>
      answerUpstreamFailure(res, err, answered, servedByHeader, upstream.label),
    );
    // The client went away before the exchange ended: stop the upstream exchange too.
    res.on('close', () => {
      if (!res.writableFinished) upstreamReq.destroy();
    });
    req.pipe(upstreamReq);
  }

  const server = http.createServer(forward);
  trackSockets(server, sockets);
  const port = await listen(server, options.port ?? 0, host);
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

/** The end-to-end headers of a message (hop-by-hop ones left out). */
function endToEnd(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  return out;
}

/** The request's headers as the upstream gets them: its host, and who asked through the proxy. */
function forwardedHeaders(req: http.IncomingMessage, upstream: Upstream): http.OutgoingHttpHeaders {
  const headers = endToEnd(req.headers);
  headers.host = upstream.url.host;
  headers['x-forwarded-host'] = req.headers.host ?? '';
  headers['x-forwarded-for'] = req.socket.remoteAddress ?? '';
  headers['x-forwarded-proto'] = 'http';
  return headers;
}

/** The proxy's endpoint maps to the upstream's own path (and query, unless the request has one). */
function upstreamPath(req: http.IncomingMessage, upstream: Upstream): string {
  const incoming = new URL(req.url ?? '/', 'http://proxy.invalid');
  return incoming.pathname === ENDPOINT_PATH
    ? `${upstream.url.pathname}${incoming.search || upstream.url.search}`
    : `${incoming.pathname}${incoming.search}`;
}

/** Keeps the server's open sockets in `sockets`, so stop() can end kept-alive ones at once. */
function trackSockets(server: http.Server, sockets: Set<Socket>): void {
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
}

/** Listens on `port` (0: any free one) and resolves with the port it got. */
async function listen(server: http.Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return typeof address === 'object' && address ? address.port : port;
}

/** Relays the upstream's answer chunk by chunk (SSE events reach the client while the stream is open). */
function relay(
  from: http.IncomingMessage,
  to: http.ServerResponse,
  servedByHeader: string,
  label: string,
): void {
  const outHeaders = endToEnd(from.headers);
  outHeaders[servedByHeader] = label;
  to.writeHead(from.statusCode ?? 502, from.statusMessage, outHeaders);
  to.flushHeaders();
  from.pipe(to);
  from.on('error', () => to.destroy());
  from.on('aborted', () => to.destroy());
}

/** The upstream failed: 504 when it did not answer in time, else 502; a started answer is cut. */
function answerUpstreamFailure(
  res: http.ServerResponse,
  err: NodeJS.ErrnoException,
  answered: boolean,
  servedByHeader: string,
  label: string,
): void {
  if (answered || res.headersSent) {
    res.destroy();
    return;
  }
  const timedOut = /no response within/.test(err.message);
  res.setHeader(servedByHeader, label);
  sendError(res, timedOut ? 504 : 502, {
    error: timedOut ? 'upstream timed out' : 'upstream unavailable',
    upstream: label,
    detail: err.code ?? err.message,
  });
}

function sendError(res: http.ServerResponse, status: number, body: Record<string, string>): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
