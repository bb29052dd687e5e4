// The front door of a real `next start` process, over real sockets: the client address is the socket's (a
// forged X-Forwarded-For or a forged stamp does not give a fresh lockout bucket), every route answers only
// the allowed host names (pages and /readyz too; /healthz any), the Flagger hook's token works in local mode,
// 200 clients at once right after start each get a 2xx or a 429 `overloaded`, and 64 clients trickling their
// bodies hold no slot: the admin, a token holder and /readyz are answered beside them, and the bodies are cut
// with 408.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '@/db';
import { processSettings } from '@/lib/settings';
import { heartbeatPollWorker } from '@/db/queries/units';
import { ensureNextBuild, startNextServer, type NextServer } from '@/lib/demo/next-app';
import { freePort } from '../../support/wait';
import { waitFor } from '../poller/support';

const root = path.resolve(import.meta.dirname, '../../..');
const ADMIN = 'front-door-admin-secret-0123456789';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-front-door-'));
const servers: NextServer[] = [];

interface Reply {
  status: number;
  body: string;
  type: string | undefined;
  retryAfter: string | undefined;
  location?: string | undefined;
}

/** One request with exactly these headers (fetch may not set Host). */
function send(
  server: NextServer,
  pathname: string,
  opts: { method?: string; headers?: Record<string, string>; body?: unknown; timeoutMs?: number } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const req = http.request(
      {
        host: '127.0.0.1',
        port: server.port,
        path: pathname,
        method: opts.method ?? 'GET',
        agent: false,
        headers: {
          host: `127.0.0.1:${server.port}`,
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          ...opts.headers,
        },
        timeout: opts.timeoutMs ?? 60_000,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body,
            type: res.headers['content-type'],
            retryAfter: res.headers['retry-after'] as string | undefined,
            location: res.headers.location,
          }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${pathname}: no answer`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * A request the test needs served (setting up), sent again after its Retry-After while the door answers 429
 * `overloaded`, as a client should: the burst of an earlier test may have spent the door's half second.
 */
async function sendServed(server: NextServer, pathname: string, opts: Parameters<typeof send>[2] = {}) {
  for (let i = 0; ; i++) {
    const reply = await send(server, pathname, opts);
    if (reply.status !== 429 || i >= 20 || !reply.body.includes('problems/overloaded')) return reply;
    await new Promise((resolve) => setTimeout(resolve, Number(reply.retryAfter ?? '1') * 1000));
  }
}

const problemType = (r: Reply) => (JSON.parse(r.body) as { type?: string }).type;

async function start(name: string, env: Record<string, string>): Promise<NextServer> {
  const port = await freePort();
  const server = await startNextServer({
    root,
    host: '127.0.0.1',
    port,
    env: {
      ERAWATCH_DB: path.join(dir, `${name}.db`),
      ERAWATCH_POLLER: 'off',
      ERAWATCH_WEBHOOKS: 'off',
      ERAWATCH_CONFIG: path.join(dir, 'absent.yaml'),
      ...env,
    },
  });
  servers.push(server);
  return server;
}

beforeAll(async () => {
  await ensureNextBuild(root);
}, 900_000);

afterAll(async () => {
  for (const s of servers) await s.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('with an admin secret', () => {
  let server: NextServer;
  beforeAll(async () => {
    server = await start('admin', {
      ERAWATCH_ADMIN_SECRET: ADMIN,
      ERAWATCH_AUTH_FAILURE_LIMIT: '3',
      ERAWATCH_MAX_CONCURRENT_REQUESTS: '4',
      // A fresh gate with no worker waits this long for a cycle: a request that holds its slot while handled.
      ERAWATCH_GATE_FRESH_WAIT_MS: '60000',
      // Its balancer points at loopback (nothing is ever probed: no worker runs here).
      ERAWATCH_ALLOW_LOOPBACK: '1',
    });
  }, 120_000);

  it('200 clients at once right after start: each gets a 2xx or a 429 overloaded with Retry-After', async () => {
    // Each is answered, none left waiting or reset: what is beyond the limit is refused at once (the test
    // below holds the slots to show it). How fast they are answered is a figure of the machine, not a test
    // assertion; send's own bound is only a safety net.
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        send(server, i % 2 === 0 ? '/api/v1/balancers' : '/readyz', {
          headers: { authorization: `Bearer ${ADMIN}` },
        }),
      ),
    );
    const bad = replies.filter((r) => !(r.status === 200 || r.status === 503 || r.status === 429));
    expect(bad.map((r) => `${r.status} ${r.body.slice(0, 80)}`)).toEqual([]);
    for (const r of replies.filter((x) => x.status === 429)) {
      expect(problemType(r)).toBe('https://erawatch.dev/problems/overloaded');
      expect(Number(r.retryAfter)).toBeGreaterThan(0);
    }
    // /readyz is 503 here (no worker polls); the API reads are 200.
    expect(replies.some((r) => r.status === 200)).toBe(true);
  });

  it('beyond the concurrency limit a request gets 429 overloaded at once, and is served once a slot frees', async () => {
    const auth = { authorization: `Bearer ${ADMIN}` };
    const created = await sendServed(server, '/api/v1/balancers', {
      method: 'POST',
      headers: auth,
      body: { name: 'held-gate', publicUrl: 'http://127.0.0.1:9/mcp' },
    });
    expect(created.status).toBe(201);
    const { id } = JSON.parse(created.body) as { id: string };
    // A poll worker of another host that is alive and never answers: a fresh gate asks it and waits.
    const store = await openStore(path.join(dir, 'admin.db'), { settings: processSettings() });
    try {
      await heartbeatPollWorker(
        store,
        { holder: 'silent-worker', pid: 1, hostname: 'elsewhere.invalid', region: 'default' },
        600_000,
        Date.now(),
        0,
        null,
      );
    } finally {
      await store.close();
    }
    // Four fresh gates wait for a cycle no worker runs: handled all along, they hold the four slots.
    const held = Array.from({ length: 4 }, () => {
      const req = http.request({
        host: '127.0.0.1',
        port: server.port,
        path: `/api/v1/balancers/${id}/gate?revision=2026-07-28&fresh=true`,
        agent: false,
        headers: { host: `127.0.0.1:${server.port}`, ...auth },
      });
      req.on('error', () => {});
      req.end();
      return req;
    });
    try {
      let reply: Reply | null = null;
      // Until the server has read the four requests' headers, a fifth may still get a slot.
      for (let i = 0; i < 200 && reply?.status !== 429; i++)
        reply = await send(server, '/api/v1/balancers', { headers: auth });
      expect(reply?.status).toBe(429);
      expect(problemType(reply as Reply)).toBe('https://erawatch.dev/problems/overloaded');
      expect(reply?.retryAfter).toBe('1');
      // /healthz is never refused for load, and /readyz has slots of its own.
      expect((await send(server, '/healthz')).status).toBe(200);
      expect([200, 503]).toContain((await send(server, '/readyz')).status);
      // The build's own files hold no slot: a page that was let in loads its scripts.
      const chunk = fs.readdirSync(path.join(root, '.next/static/chunks')).find((f) => f.endsWith('.js'));
      const asset = await send(server, `/_next/static/chunks/${chunk ?? 'missing.js'}`);
      expect(asset.status).toBe(200);
    } finally {
      for (const r of held) r.destroy();
    }
    let after: Reply | null = null;
    for (let i = 0; i < 200 && after?.status !== 200; i++) {
      after = await send(server, '/api/v1/balancers', { headers: auth });
    }
    expect(after?.status).toBe(200);
  });

  it('64 slow bodies hold no slot: the admin, a token holder and /readyz are answered; the bodies get 408', async () => {
    const token = await sendServed(server, '/api/v1/tokens', {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}` },
      body: { name: 'beside-slow-bodies', scope: 'read' },
    });
    expect(token.status).toBe(201);
    const secret = (JSON.parse(token.body) as { token: string }).token;
    // Anonymous writes that send their headers, then trickle their bodies a byte at a time.
    const timers: NodeJS.Timeout[] = [];
    const requests: http.ClientRequest[] = [];
    const started = new Set<http.ClientRequest>();
    const cut = Array.from(
      { length: 64 },
      () =>
        new Promise<Reply | Error>((resolve) => {
          const req = http.request(
            {
              host: '127.0.0.1',
              port: server.port,
              path: '/api/v1/balancers',
              method: 'POST',
              agent: false,
              headers: {
                host: `127.0.0.1:${server.port}`,
                'content-type': 'application/json',
                'content-length': '100000',
              },
            },
            (res) => {
              let body = '';
              res.setEncoding('utf8');
              res.on('data', (d: string) => (body += d));
              res.on('end', () =>
                resolve({
                  status: res.statusCode ?? 0,
                  body,
                  type: res.headers['content-type'],
                  retryAfter: undefined,
                }),
              );
              res.on('error', resolve);
            },
          );
          req.on('error', resolve);
          requests.push(req);
          req.write('{"name":"', () => started.add(req));
          const timer = setInterval(() => req.write('a'), 500);
          timers.push(timer);
          req.on('close', () => clearInterval(timer));
        }),
    );
    try {
      // Every slow request's headers and first bytes are sent before the others are.
      await waitFor('the slow bodies to be under way', 60_000, () => started.size === 64);
      // Answered while every slow body is still arriving (each is cut no sooner than 2 s after its headers).
      const answers = await Promise.all([
        send(server, '/api/v1/balancers', { headers: { authorization: `Bearer ${ADMIN}` } }),
        send(server, '/api/v1/balancers', { headers: { authorization: `Bearer ${secret}` } }),
        send(server, '/readyz'),
      ]);
      expect(answers.slice(0, 2).map((a) => a.status)).toEqual([200, 200]);
      // /readyz answers its verdict (whichever it is here), not 429.
      expect([200, 503]).toContain(answers[2]?.status);
      expect(typeof (JSON.parse(answers[2]?.body ?? '{}') as { ready?: unknown }).ready).toBe('boolean');
      const ends = await Promise.all(cut);
      for (const end of ends) {
        expect(end).not.toBeInstanceOf(Error);
        expect((end as Reply).status).toBe(408);
        expect(problemType(end as Reply)).toBe('https://erawatch.dev/problems/body_timeout');
      }
    } finally {
      // Whatever failed above, the slow bodies end here (the server cuts them), so they hold nothing open
      // in the tests that follow; a server that never cuts them has them closed by the client instead.
      const giveUp = setTimeout(() => requests.forEach((r) => r.destroy()), 60_000);
      await Promise.all(cut);
      clearTimeout(giveUp);
      timers.forEach(clearInterval);
    }
  }, 120_000);

  it('pages, the API and /readyz refuse a foreign Host; /healthz answers it', async () => {
    for (const p of ['/', '/events', '/balancers/abc', '/readyz', '/api/v1/balancers']) {
      const r = await send(server, p, { headers: { host: 'rebound.example:3000' } });
      expect(r.status, p).toBe(403);
      expect(problemType(r), p).toBe('https://erawatch.dev/problems/host_not_allowed');
    }
    const health = await send(server, '/healthz', { headers: { host: 'rebound.example:3000' } });
    expect(health.status).toBe(200);
    // Its own Host passes the check: a signed-out visitor is sent to the login page (this server needs one).
    const page = await send(server, '/');
    expect(page.status).toBe(307);
    expect(new URL(page.location ?? '', 'http://x').pathname).toBe('/login');
  });

  it('a fresh X-Forwarded-For or a forged stamp per guess does not escape the lockout', async () => {
    const origin = `http://127.0.0.1:${server.port}`;
    const guess = (i: number, secret: string) =>
      send(server, '/api/v1/session', {
        method: 'POST',
        headers: {
          origin,
          'x-forwarded-for': `10.20.${i}.1`,
          'x-erawatch-client': `forged ok 10.30.${i}.1`,
        },
        body: { secret },
      });
    for (let i = 0; i < 3; i++) expect((await guess(i, 'not-the-admin-secret-at-all')).status).toBe(401);
    // The socket's address is locked out: the right secret is refused too, and so are random token prefixes.
    const right = await guess(9, ADMIN);
    expect(right.status).toBe(429);
    expect(problemType(right)).toBe('https://erawatch.dev/problems/too_many_failed_attempts');
    const token = await send(server, '/api/v1/balancers', {
      headers: { authorization: `Bearer ewt_read_${'r'.repeat(32)}`, 'x-forwarded-for': '10.40.0.1' },
    });
    expect(token.status).toBe(429);
  });
});

describe('local mode', () => {
  let server: NextServer;
  beforeAll(async () => {
    server = await start('local', { ERAWATCH_ALLOW_LOOPBACK: '1' });
  }, 120_000);

  it('pages and /readyz answer only loopback host names', async () => {
    for (const p of ['/', '/events', '/readyz']) {
      const r = await send(server, p, { headers: { host: 'rebound.example:3000' } });
      expect(r.status, p).toBe(403);
      expect(problemType(r), p).toBe('https://erawatch.dev/problems/host_not_loopback');
      expect(r.body).not.toContain('<html');
    }
    expect((await send(server, '/', { headers: { host: `localhost:${server.port}` } })).status).toBe(200);
  });

  it('the Flagger hook takes its token in metadata.token without an Origin', async () => {
    const origin = `http://127.0.0.1:${server.port}`;
    const created = await send(server, '/api/v1/tokens', {
      method: 'POST',
      headers: { origin },
      body: { name: 'flagger', scope: 'read' },
    });
    expect(created.status).toBe(201);
    const { token } = JSON.parse(created.body) as { token: string };
    const balancer = await send(server, '/api/v1/balancers', {
      method: 'POST',
      headers: { origin },
      body: { name: 'hooked', publicUrl: 'http://127.0.0.1:9/mcp' },
    });
    expect(balancer.status).toBe(201);
    const hook = (t: string | undefined) =>
      send(server, '/api/v1/hooks/flagger', {
        method: 'POST',
        body: {
          name: 'app',
          namespace: 'prod',
          metadata: { balancer: 'hooked', revision: '2026-07-28', token: t },
        },
      });
    const answered = await hook(token);
    // No cycle has run: the gate is closed, which is the hook's answer, not an authentication refusal.
    expect(answered.status).toBe(409);
    expect(problemType(answered)).toBe('https://erawatch.dev/problems/gate_closed');
    expect(problemType(await hook(`ewt_read_${'w'.repeat(32)}`))).toBe(
      'https://erawatch.dev/problems/invalid_token',
    );
    expect(problemType(await hook(undefined))).toBe('https://erawatch.dev/problems/credentials_required');
  });
});
