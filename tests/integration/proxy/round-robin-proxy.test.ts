import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRoundRobinProxy, type RoundRobinProxy } from '@/lib/peers/round-robin-proxy';
import { startPeer, startPeers, type RunningPeer } from '@/lib/peers/spawn';
import { postDiscover, postInitialize, postRpc, serverInfoOf } from '@/tests/integration/demo/mcp-requests';

const label = (peer: RunningPeer) => `${peer.host}:${peer.port}`;

describe('round-robin proxy in front of real SDK peers', () => {
  let peers: RunningPeer[] = [];
  const proxies: RoundRobinProxy[] = [];
  let a: RunningPeer;
  let b: RunningPeer;

  beforeAll(async () => {
    peers = await startPeers([
      { kind: 'v2-dual', name: 'node-a', version: '2.0.0' },
      { kind: 'v2-modern', name: 'node-b', version: '2.1.0' },
    ]);
    [a, b] = peers as [RunningPeer, RunningPeer];
  });
  afterAll(async () => {
    await Promise.all(proxies.map((p) => p.stop()));
    await Promise.all(peers.map((p) => p.stop()));
  });

  async function proxyFor(upstreams: string[], servedByHeader?: string): Promise<RoundRobinProxy> {
    const proxy = await startRoundRobinProxy({ upstreams, servedByHeader });
    proxies.push(proxy);
    return proxy;
  }

  it('alternates requests across upstreams and names the one that answered', async () => {
    const proxy = await proxyFor([a.url, b.url]);
    expect(proxy.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const seen: Array<[string | null, string | undefined]> = [];
    for (let i = 1; i <= 4; i++) {
      const ex = await postDiscover(proxy.url, i);
      expect(ex.status).toBe(200);
      expect(ex.message?.id).toBe(i);
      seen.push([ex.headers.get('x-served-by'), serverInfoOf(ex)?.name]);
    }
    expect(seen).toEqual([
      [label(a), 'node-a'],
      [label(b), 'node-b'],
      [label(a), 'node-a'],
      [label(b), 'node-b'],
    ]);
    // The servers saw the requests too: two modern requests each through this proxy.
    const modern = async (p: RunningPeer) => (await p.received()).filter((r) => r.era === 'modern').length;
    expect(await modern(a)).toBe(2);
    expect(await modern(b)).toBe(2);
  });

  it('uses the configured attribution header name', async () => {
    const proxy = await proxyFor([b.url], 'X-Node');
    const ex = await postDiscover(proxy.url);
    expect(ex.headers.get('x-node')).toBe(label(b));
    expect(ex.headers.get('x-served-by')).toBeNull();
  });

  it('relays SSE answers from a legacy peer and keeps its session on the node that minted it', async () => {
    const legacy = await startPeers([
      { kind: 'v1-stateful', name: 'legacy-a' },
      { kind: 'v1-stateful', name: 'legacy-b' },
    ]);
    peers.push(...legacy);
    const [la, lb] = legacy as [RunningPeer, RunningPeer];
    const proxy = await proxyFor([la.url, lb.url]);

    const init = await postInitialize(proxy.url, 7);
    expect(init.status).toBe(200);
    expect(init.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(init.headers.get('x-served-by')).toBe(label(la));
    expect(init.message?.result?.protocolVersion).toBe('2025-11-25');
    const session = init.headers.get('mcp-session-id');
    expect(session).toMatch(/^[0-9a-f-]{36}$/);
    const sessionHeaders = { 'mcp-session-id': session ?? '', 'mcp-protocol-version': '2025-11-25' };

    // The notification and the DELETE carry the session, so both go to legacy-a, not the next in turn.
    const note = await postRpc(
      proxy.url,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      sessionHeaders,
    );
    expect(note.status).toBe(202);
    expect(note.headers.get('x-served-by')).toBe(label(la));
    const del = await fetch(proxy.url, {
      method: 'DELETE',
      headers: sessionHeaders,
      signal: AbortSignal.timeout(5_000),
    });
    await del.text();
    expect(del.status).toBe(200);
    expect(del.headers.get('x-served-by')).toBe(label(la));

    const openSessions = async (p: RunningPeer) => {
      const res = await fetch(new URL('/sessions', p.url), { signal: AbortSignal.timeout(5_000) });
      return ((await res.json()) as { open: number }).open;
    };
    expect(await openSessions(la)).toBe(0);
    expect(await openSessions(lb)).toBe(0);
    expect(await la.received()).toEqual([
      { method: 'initialize' },
      { method: 'notifications/initialized' },
      { httpMethod: 'DELETE' },
    ]);
    expect(await lb.received()).toEqual([]);

    // Requests without a session resume the rotation where it was.
    const next = await postDiscover(proxy.url);
    expect(next.headers.get('x-served-by')).toBe(label(lb));
  });

  it('answers 502 naming the upstream when it is down, and keeps serving the live ones', async () => {
    const gone = await startPeer('v2-modern');
    await gone.stop();
    const proxy = await proxyFor([a.url, gone.url]);
    const first = await postDiscover(proxy.url);
    const second = await postDiscover(proxy.url);
    const third = await postDiscover(proxy.url);
    expect([first.status, second.status, third.status]).toEqual([200, 502, 200]);
    expect(second.headers.get('x-served-by')).toBe(label(gone));
    expect(second.message).toBeNull();
    const body = await fetchBody(proxy.url);
    expect(body).toEqual({
      status: 502,
      json: { error: 'upstream unavailable', upstream: label(gone), detail: 'ECONNREFUSED' },
    });
  });

  it('answers 503 when no upstream is configured', async () => {
    const proxy = await proxyFor([]);
    expect(await fetchBody(proxy.url)).toEqual({ status: 503, json: { error: 'no upstreams configured' } });
  });

  it.each([
    ['not a URL', 'nope', "upstream 'nope' is not a URL"],
    ['https', 'https://127.0.0.1:1/mcp', "upstream 'https://127.0.0.1:1/mcp' must be an http:// URL"],
    ['not loopback', 'http://10.1.2.3:80/mcp', "upstream 'http://10.1.2.3:80/mcp' must be on loopback"],
  ])('setUpstreams refuses %s and changes nothing', async (_case, bad, message) => {
    const proxy = await proxyFor([a.url]);
    expect(() => proxy.setUpstreams([b.url, bad])).toThrow(message);
    expect(proxy.upstreams()).toEqual([a.url]);
    const ex = await postDiscover(proxy.url);
    expect(ex.headers.get('x-served-by')).toBe(label(a));
  });

  it('refuses a non-loopback bind', async () => {
    await expect(startRoundRobinProxy({ upstreams: [a.url], host: '0.0.0.0' })).rejects.toThrow(
      "host '0.0.0.0' is not a loopback address",
    );
  });

  it('setUpstreams swaps the rotation for the next request', async () => {
    const proxy = await proxyFor([a.url]);
    proxy.setUpstreams([b.url, a.url]);
    const first = await postDiscover(proxy.url);
    const second = await postDiscover(proxy.url);
    expect([first.headers.get('x-served-by'), second.headers.get('x-served-by')]).toEqual([
      label(b),
      label(a),
    ]);
  });
});

describe('round-robin proxy streaming', () => {
  // A plain HTTP upstream that only sends its second SSE event, and only finishes reading the request,
  // after the client has seen the first part: a buffering proxy would deadlock here (and fail the bounded wait).
  let upstream: http.Server;
  let upstreamUrl: string;
  let proxy: RoundRobinProxy | undefined;
  const releases: Array<() => void> = [];

  beforeAll(async () => {
    upstream = http.createServer((req, res) => {
      if (req.url === '/sse') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.write('event: message\ndata: {"n":1}\n\n');
        releases.push(() => res.end('event: message\ndata: {"n":2}\n\n'));
        return;
      }
      // Echo each request chunk back as soon as it arrives.
      res.writeHead(200, { 'content-type': 'text/plain' });
      req.on('data', (chunk: Buffer) => res.write(`echo:${chunk.toString()};`));
      req.on('end', () => res.end('done'));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`;
  });
  afterAll(async () => {
    await proxy?.stop();
    upstream.closeAllConnections();
    await new Promise<void>((resolve) => upstream.close(() => resolve()));
  });

  it('passes SSE events through as they are written', async () => {
    proxy = await startRoundRobinProxy({ upstreams: [upstreamUrl.replace('/mcp', '/sse')] });
    const res = await fetch(proxy.url, { signal: AbortSignal.timeout(10_000) });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body?.getReader();
    if (!reader) throw new Error('no body');
    const decoder = new TextDecoder();
    const first = await reader.read();
    expect(decoder.decode(first.value)).toBe('event: message\ndata: {"n":1}\n\n');
    expect(releases).toHaveLength(1);
    releases[0]?.();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      rest += decoder.decode(chunk.value);
    expect(rest).toBe('event: message\ndata: {"n":2}\n\n');
    await proxy.stop();
    proxy = undefined;
  });

  it('streams the request body to the upstream while the client is still sending', async () => {
    proxy = await startRoundRobinProxy({ upstreams: [upstreamUrl] });
    const target = new URL(proxy.url);
    const text = await new Promise<string>((resolve, reject) => {
      const req = http.request({
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        timeout: 10_000,
      });
      req.on('timeout', () => req.destroy(new Error('timed out waiting for the echo')));
      req.on('error', reject);
      req.on('response', (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
          // Only after the first echo has come back through the proxy does the client send the rest.
          if (body === 'echo:one;') req.end('two');
        });
        res.on('end', () => resolve(body));
      });
      req.flushHeaders();
      req.write('one');
    });
    expect(text).toBe('echo:one;echo:two;done');
  });

  it('stop() closes open streams instead of waiting for them', async () => {
    const releasesBefore = releases.length;
    const local = await startRoundRobinProxy({ upstreams: [upstreamUrl.replace('/mcp', '/sse')] });
    const res = await fetch(local.url, { signal: AbortSignal.timeout(10_000) });
    const reader = res.body?.getReader();
    if (!reader) throw new Error('no body');
    await reader.read();
    await local.stop();
    await expect(reader.read()).rejects.toThrow();
    releases.slice(releasesBefore).forEach((release) => release());
    await expect(fetch(local.url, { signal: AbortSignal.timeout(5_000) })).rejects.toThrow();
  });
});

async function fetchBody(url: string): Promise<{ status: number; json: unknown }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
    signal: AbortSignal.timeout(5_000),
  });
  return { status: res.status, json: await res.json() };
}
