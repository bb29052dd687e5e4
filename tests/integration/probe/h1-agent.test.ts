// The probe's HTTP/1.1 client against raw loopback servers that write exact bytes: framing (length, chunked,
// read-until-close, informational answers), keep-alive reuse and hints, malformed answers, and aborts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { request } from 'undici';
import { H1Agent } from '@/lib/probe/h1-agent';
import { outcomeOfError } from '@/lib/probe/http-transport';
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

describe('the probe HTTP/1.1 client', () => {
  it('sends the request line, Host and the body, and reuses one connection for exchanges in turn', async () => {
    const server = await serve(() => [json('{"ok":true}')]);
    const agent = agentFor();
    for (let i = 0; i < 3; i++) {
      const r = await post(agent, server.port);
      expect(r.error).toBeNull();
      expect(r.status).toBe(200);
      expect(r.body).toBe('{"ok":true}');
    }
    expect(server.connections()).toBe(1);
    const head = server.heads[0] ?? '';
    expect(head.split('\r\n')[0]).toBe('POST /mcp HTTP/1.1');
    expect(head).toContain(`host: 127.0.0.1:${server.port}`);
    expect(head).toContain('content-length: 8');
    expect(head).toContain('content-type: application/json');
  });

  it('decodes chunked bodies split at every byte, extensions and trailers included', async () => {
    const wire =
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n4;ext=1\r\n{"a"\r\n6\r\n:12345\r\n1\r\n}\r\n0\r\nx-trailer: y\r\n\r\n';
    const server = await serve(() => [...wire].map((c) => Buffer.from(c, 'latin1')));
    const agent = agentFor();
    const r = await post(agent, server.port);
    expect(r.error).toBeNull();
    expect(r.body).toBe('{"a":12345}');
    // The connection is still in step: a second exchange reuses it.
    expect((await post(agent, server.port)).body).toBe('{"a":12345}');
    expect(server.connections()).toBe(1);
  });

  it('skips informational answers and reads a body that ends with the connection', async () => {
    const server = await serve((_h, _i, socket) => {
      socket.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </x>\r\n\r\n');
      socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n{"until":"close"}');
      return null;
    });
    const r = await post(agentFor(), server.port);
    expect(r.error).toBeNull();
    expect(r.status).toBe(200);
    expect(r.body).toBe('{"until":"close"}');
  });

  it('joins repeated headers into a list and lower-cases names', async () => {
    const server = await serve(() => [
      'HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer realm="a"\r\nwww-authenticate: Basic\r\nContent-Length: 0\r\n\r\n',
    ]);
    const r = await post(agentFor(), server.port);
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toEqual(['Bearer realm="a"', 'Basic']);
  });

  it('opens a new connection after `connection: close`, and trusts a short keep-alive hint less', async () => {
    const server = await serve((_h, i) => [
      json('{}', i === 0 ? 'connection: close\r\n' : 'keep-alive: timeout=1\r\n'),
    ]);
    const agent = agentFor();
    await post(agent, server.port);
    await post(agent, server.port);
    expect(server.connections()).toBe(2);
    // timeout=1 leaves nothing once the 2 s margin is taken: the connection is not kept.
    await post(agent, server.port);
    expect(server.connections()).toBe(3);
  });

  it('maps a server that closes mid-answer, resets, or writes garbage to the probe outcomes', async () => {
    const closes = await serve((_h, _i, socket) => {
      socket.end('HTTP/1.1 200 OK\r\ncontent-length: 50\r\n\r\n{"short"');
      return null;
    });
    const resets = await serve((_h, _i, socket) => {
      socket.resetAndDestroy();
      return null;
    });
    const garbage = await serve(() => ['SMTP ready\r\n\r\n']);
    const agent = agentFor();
    expect(outcomeOfError((await post(agent, closes.port)).error).outcome).toBe('closed');
    expect(outcomeOfError((await post(agent, resets.port)).error).outcome).toBe('reset');
    const bad = await post(agent, garbage.port);
    expect(bad.error?.message).toMatch(/invalid status line/);
    expect(outcomeOfError(bad.error).outcome).toBe('network_error');
  });

  it('refuses a response head past 16 KiB', async () => {
    const server = await serve(() => [`HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`]);
    const r = await post(agentFor(), server.port);
    expect(r.error?.message).toMatch(/response head too large/);
  });

  it('closes the connection when the handler stops mid-body, and the next exchange dials again', async () => {
    const server = await serve(() => [json(`{"pad":"${'x'.repeat(5_000)}"}`)]);
    const agent = agentFor();
    const first = await post(agent, server.port, '{"id":1}', 10);
    expect(first.error?.message).toBe('enough');
    expect((await post(agent, server.port)).error).toBeNull();
    expect(server.connections()).toBe(2);
  });

  it('refuses loopback under a policy that forbids it, before connecting', async () => {
    const server = await serve(() => [json('{}')]);
    const strict = new H1Agent({ allowLoopback: false, allowPrivate: false });
    open.push({ close: () => strict.close() });
    const r = await post(strict, server.port);
    expect(outcomeOfError(r.error).outcome).toBe('egress_refused');
    expect(server.connections()).toBe(0);
  });

  it('sends undici `request` calls (the auth side fetches) through the same guarded agent', async () => {
    const server = await serve(() => [json('{"meta":1}')]);
    const agent = agentFor();
    const res = await request(`http://127.0.0.1:${server.port}/.well-known/x`, { dispatcher: agent });
    expect(res.statusCode).toBe(200);
    expect(await res.body.json()).toEqual({ meta: 1 });
    const strict = new H1Agent({ allowLoopback: false, allowPrivate: false });
    open.push({ close: () => strict.close() });
    await expect(request(`http://127.0.0.1:${server.port}/`, { dispatcher: strict })).rejects.toMatchObject({
      code: 'ERAWATCH_EGRESS_REFUSED',
    });
  });

  it('close ends every idle connection and waits for the exchanges still running', async () => {
    const held: { release?: () => void } = {};
    const server = await serve((_head, index, socket) => {
      if (index === 40) {
        held.release = () => socket.write(json('{"slow":true}'));
        return null;
      }
      return [json('{}')];
    });
    const agent = new H1Agent(LOOPBACK);
    await Promise.all(Array.from({ length: 40 }, () => post(agent, server.port)));
    expect(server.connections()).toBe(40);
    const slow = post(agent, server.port, '{"slow":1}');
    await vi.waitFor(() => expect(held.release).toBeDefined());
    let closed = false;
    const closing = agent.close().then(() => (closed = true));
    // The idle connections go at once; the running exchange is not cut.
    await vi.waitFor(() => expect(server.open()).toBe(1));
    expect(closed).toBe(false);
    held.release?.();
    expect((await slow).body).toBe('{"slow":true}');
    await closing;
    expect(closed).toBe(true);
    const after = await post(agent, server.port);
    expect(after.error?.message).toMatch(/closed/);
  });

  it('destroy ends idle connections and running exchanges at once, and refuses what comes after', async () => {
    let held = 0;
    // The first three answer; the next two are held.
    const server = await serve((_head, index) => {
      if (index < 3) return [json('{}')];
      held++;
      return null;
    });
    const agent = new H1Agent(LOOPBACK);
    await Promise.all(Array.from({ length: 3 }, () => post(agent, server.port)));
    const slow = [post(agent, server.port, '{"slow":1}'), post(agent, server.port, '{"slow":2}')];
    await vi.waitFor(() => expect(held).toBe(2));
    expect(server.open()).toBe(3);
    await agent.destroy();
    for (const r of await Promise.all(slow)) {
      expect(r.error?.code).toBe('ERAWATCH_CLIENT_DESTROYED');
      expect(outcomeOfError(r.error).outcome).toBe('closed');
    }
    await vi.waitFor(() => expect(server.open()).toBe(0));
    const after = await post(agent, server.port);
    expect(after.error?.message).toMatch(/closed/);
    expect(server.connections()).toBe(3);
  });

  it('refuses header values that would split the request', async () => {
    const server = await serve(() => [json('{}')]);
    const agent = agentFor();
    const r = await new Promise<Error | null>((resolve) => {
      agent.dispatch(
        {
          origin: `http://127.0.0.1:${server.port}`,
          path: '/',
          method: 'POST',
          headers: { 'x-a': 'b\r\nx-c: d' },
          body: '',
        },
        {
          onResponseStart() {},
          onResponseEnd: () => resolve(null),
          onResponseError: (_c, err) => resolve(err),
        },
      );
    });
    expect(r?.message).toMatch(/invalid header x-a/);
    expect(server.heads).toHaveLength(0);
  });
});
