// The probe's HTTP/1.1 client against servers that try to desynchronise a keep-alive socket or to smuggle
// framing past it. Each hostile answer is also sent to undici's own Pool: the probe's client refuses
// everything undici refuses.
import { afterEach, describe, expect, it } from 'vitest';
import { Pool } from 'undici';
import { DEFAULT_PROBE_OPTIONS, probeNode } from '@/lib/probe';
import { H1Agent } from '@/lib/probe/h1-agent';
import { initializeResult, legacyHandler, startFaultPeer } from '@/tests/support/fault-peer';
import { post, rawServer, type RawServer } from '@/tests/support/raw-http';

const LOOPBACK = { allowLoopback: true, allowPrivate: false };

const open: Array<{ close: () => Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});

function agentFor(): H1Agent {
  const agent = new H1Agent(LOOPBACK, { keepAliveTimeoutMs: 30_000 });
  open.push({ close: () => agent.close() });
  return agent;
}

async function serve(answer: Parameters<typeof rawServer>[0]): Promise<RawServer> {
  const s = await rawServer(answer);
  open.push(s);
  return s;
}

const json = (text: string, extra = ''): string =>
  `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\n${extra}\r\n${text}`;

/** The same request through undici's Pool (pipelining 1), for what undici does with the same bytes. */
async function undiciPost(port: number): Promise<{ body: string | null; error: Error | null }> {
  const pool = new Pool(`http://127.0.0.1:${port}`, { pipelining: 1 });
  try {
    const res = await pool.request({ path: '/mcp', method: 'POST', body: '{"id":1}' });
    return { body: await res.body.text(), error: null };
  } catch (err) {
    return { body: null, error: err as Error };
  } finally {
    await pool.destroy();
  }
}

describe('a keep-alive socket a server tries to put out of step', () => {
  it('a second answer written a moment after the first poisons the socket; the next request gets its own', async () => {
    const server = await serve((_head, index, socket) => {
      if (index === 0) {
        socket.write(json('{"answer":"discover"}'));
        // Not in the same write: the leftover arrives on its own, after the first answer was read.
        setImmediate(() => socket.write(json('{"answer":"leftover"}')));
        return null;
      }
      return [json(`{"answer":"request ${index}"}`)];
    });
    const agent = agentFor();
    expect((await post(agent, server.port)).body).toBe('{"answer":"discover"}');
    const second = await post(agent, server.port);
    expect(second.error).toBeNull();
    expect(second.body).toBe('{"answer":"request 1"}');
    // The poisoned socket was never written to again: the request went out on a fresh one.
    expect(server.connections()).toBe(2);
    expect((await post(agent, server.port)).body).toBe('{"answer":"request 2"}');
  });

  it('a reused socket the server closes before answering is retried once, on a fresh socket', async () => {
    // Each connection answers its first request and closes on its second without a byte (its keep-alive
    // timer fired as the request crossed it).
    const served = new WeakMap<object, number>();
    const server = await serve((_head, index, socket) => {
      const n = (served.get(socket) ?? 0) + 1;
      served.set(socket, n);
      if (n > 1) {
        socket.destroy();
        return null;
      }
      return [json(`{"answer":"request ${index}"}`)];
    });
    const agent = agentFor();
    expect((await post(agent, server.port)).body).toBe('{"answer":"request 0"}');
    const again = await post(agent, server.port);
    expect(again.error).toBeNull();
    expect(again.body).toBe('{"answer":"request 2"}');
    expect(server.connections()).toBe(2);
  });

  it('never sends a request marked not idempotent (an initialize) twice', async () => {
    const served = new WeakMap<object, number>();
    const server = await serve((_head, index, socket) => {
      const n = (served.get(socket) ?? 0) + 1;
      served.set(socket, n);
      if (n > 1) {
        socket.destroy();
        return null;
      }
      return [json(`{"answer":"request ${index}"}`)];
    });
    const agent = agentFor();
    expect((await post(agent, server.port)).body).toBe('{"answer":"request 0"}');
    const once = await post(agent, server.port, '{"method":"initialize"}', undefined, false);
    expect(once.error?.message).toMatch(/closed/);
    expect(server.heads).toHaveLength(2);
    expect(server.connections()).toBe(1);
  });

  it('retries only once: a fresh socket that closes without an answer is the answer', async () => {
    const server = await serve((_head, index, socket) => {
      if (index === 0) return [json('{"answer":"first"}')];
      socket.destroy();
      return null;
    });
    const agent = agentFor();
    expect((await post(agent, server.port)).body).toBe('{"answer":"first"}');
    const r = await post(agent, server.port);
    expect(r.error?.message).toMatch(/closed/);
    // The reused socket, then one fresh one: three requests in all, never a fourth.
    expect(server.heads).toHaveLength(3);
    expect(server.connections()).toBe(2);
  });

  it('an endless stream of 1xx answers is refused after a few, and the socket is closed', async () => {
    let closed = false;
    const server = await serve((_head, _index, socket) => {
      socket.on('close', () => (closed = true));
      const flood = (): void => {
        if (socket.destroyed) return;
        socket.write('HTTP/1.1 103 Early Hints\r\nlink: </a>; rel=preload\r\n\r\n'.repeat(64), () =>
          setImmediate(flood),
        );
      };
      flood();
      return null;
    });
    const r = await post(agentFor(), server.port);
    expect(r.status).toBeNull();
    expect(r.error?.message).toMatch(/more than 8 informational responses/);
    await new Promise<void>((resolve) => {
      const check = (): void => (closed ? resolve() : void setImmediate(check));
      check();
    });
  });
});

describe('a status outside 100-599', () => {
  // undici's Pool hands these to the caller (its fetch refuses them); the probe refuses them outright.
  it.each(['HTTP/1.1 600 Odd', 'HTTP/1.1 099 Odd', 'HTTP/1.1 000 Odd'])('%s is refused', async (line) => {
    const server = await serve(() => [`${line}\r\ncontent-length: 2\r\n\r\n{}`]);
    const ours = await post(agentFor(), server.port);
    expect(ours.status).toBeNull();
    expect(ours.error?.message).toMatch(/invalid status line/);
  });
});

describe('framing undici refuses, the probe refuses too', () => {
  it.each<[string, string]>([
    ['a space before a header colon', 'HTTP/1.1 200 OK\r\ncontent-length : 2\r\n\r\n{}'],
    [
      'transfer-encoding with content-length',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ncontent-length: 7\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
    ],
    [
      'a bare LF after a chunk size',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\n{}\r\n0\r\n\r\n',
    ],
    ['a bare LF after chunk data', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\n0\r\n\r\n'],
    ['a header name with a slash', 'HTTP/1.1 200 OK\r\nx/y: 1\r\ncontent-length: 2\r\n\r\n{}'],
  ])('%s', async (_name, bytes) => {
    const server = await serve(() => [bytes]);
    const ours = await post(agentFor(), server.port);
    // An error, never an end: whatever was delivered before it is thrown away by the transport.
    expect(ours.error?.message).toBeTruthy();
    const theirs = await undiciPost(server.port);
    expect(theirs.error).not.toBeNull();
  });
});

describe('a legacy node that closes each connection right after answering', () => {
  it('is legacy: the initialize goes out on a fresh socket, never on the dead one', async () => {
    const answer = legacyHandler((id) => initializeResult(id));
    const peer = await startFaultPeer((req, res) => {
      // A complete keep-alive answer, then the server closes the connection a moment later.
      res.on('finish', () => setImmediate(() => res.socket?.destroy()));
      return answer(req, res);
    });
    open.push(peer);
    const agent = agentFor();
    const v = await probeNode(
      { url: peer.url, allowLegacy: true },
      { ...DEFAULT_PROBE_OPTIONS, timeoutMs: 5_000, legacyProbeTimeoutMs: 5_000 },
      { dispatcher: agent, egress: { allowLoopback: true, allowPrivate: true } },
    );
    expect(v).toMatchObject({ verdict: 'legacy', reason: 'legacy_positive_evidence' });
    expect(v.evidence.map((e) => [e.step, e.outcome])).toEqual([
      ['discover', 'rpc_error'],
      ['initialize', 'result'],
    ]);
  });
});
