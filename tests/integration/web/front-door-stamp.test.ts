// The front door's stamp on a plain Node HTTP server (what `next start`, the standalone server and the demo
// run on): the address is the socket's whatever the client sends, X-Forwarded-For counts only across trusted
// proxies, and requests beyond the concurrency limit are marked while the ones in flight hold their slots
// (but not this process's own server-side reads of its API).
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrivedOverloaded, clientAddress, installFrontDoor, STAMP_HEADER } from '@/lib/api/front-door';
import { internalRequestHeaders } from '@/lib/net/internal-requests';

interface Seen {
  address: string;
  trusted: string;
  overloaded: boolean;
  /** The door's own answer: 429 when it refused the request before the handler ran. */
  status?: number;
}

let server: http.Server;
let port = 0;
const parked: http.ServerResponse[] = [];

function toRequest(req: http.IncomingMessage): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
  return new Request(`http://127.0.0.1${req.url ?? '/'}`, { headers });
}

beforeAll(async () => {
  installFrontDoor({ maxConcurrentRequests: 2, adminSecret: null });
  server = http.createServer((req, res) => {
    const request = toRequest(req);
    const seen: Seen = {
      address: clientAddress(request, { trustedProxies: [] }),
      trusted: clientAddress(request, { trustedProxies: ['127.0.0.0/8'] }),
      overloaded: arrivedOverloaded(request.headers),
    };
    // /park holds its slot until the test lets it go.
    if (req.url === '/park' && !seen.overloaded) {
      parked.push(res);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(JSON.stringify(seen));
      return;
    }
    res.end(JSON.stringify(seen));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});

afterAll(async () => {
  for (const r of parked) r.end();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function get(pathname: string, headers: Record<string, string> = {}): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: pathname, headers, agent: false }, (res) => {
      res.setEncoding('utf8');
      // The first chunk is the whole answer, also for a parked response that stays open. A request the door
      // refused never reaches the handler: its answer is the door's 429.
      res.once('data', (d: string) =>
        resolve(
          res.statusCode === 429
            ? { address: '', trusted: '', overloaded: true, status: 429 }
            : (JSON.parse(d) as Seen),
        ),
      );
    });
    req.on('error', reject);
  });
}

describe('the front door stamp', () => {
  it('is the socket address: a forged stamp or X-Forwarded-For from an untrusted peer changes nothing', async () => {
    const seen = await get('/', {
      [STAMP_HEADER]: 'guessed-nonce ok 203.0.113.1',
      'x-forwarded-for': '198.51.100.1',
    });
    expect(seen.address).toBe('127.0.0.1');
    expect(seen.overloaded).toBe(false);
  });

  it('across a trusted proxy, X-Forwarded-For names the client', async () => {
    const seen = await get('/', { 'x-forwarded-for': '198.51.100.1, 127.0.0.5' });
    expect(seen.trusted).toBe('198.51.100.1');
    expect(seen.address).toBe('127.0.0.1');
  });

  it('a request without a stamp of this process has no address', () => {
    const forged = new Request('http://127.0.0.1/', { headers: { [STAMP_HEADER]: 'x ok 203.0.113.9' } });
    expect(clientAddress(forged, { trustedProxies: [] })).toBe('unknown');
  });

  it('beyond the limit a request is marked overloaded; a freed slot is taken again; /healthz is never marked', async () => {
    expect((await get('/park')).overloaded).toBe(false);
    expect((await get('/park')).overloaded).toBe(false);
    expect(await get('/')).toMatchObject({ overloaded: true, status: 429 });
    expect((await get('/healthz')).overloaded).toBe(false);
    // A server component's read of this same process's API runs inside a page request that holds a slot.
    expect((await get('/', internalRequestHeaders())).overloaded).toBe(false);
    expect((await get('/', { 'x-erawatch-internal': 'guessed' })).overloaded).toBe(true);
    const freed = new Promise<void>((resolve) => parked[0]?.once('close', () => resolve()));
    parked[0]?.end();
    await freed;
    expect((await get('/')).overloaded).toBe(false);
  });

  it('without credentials, requests hold at most a quarter of the slots; a credential gets one beside them', async () => {
    // A server with an admin secret: requests without a bearer or a session cookie are held to their share.
    installFrontDoor({ maxConcurrentRequests: 8, adminSecret: 'stamp-test-admin-secret-0123' });
    try {
      expect((await get('/park')).overloaded).toBe(false);
      expect((await get('/park')).overloaded).toBe(false);
      expect(await get('/park')).toMatchObject({ overloaded: true, status: 429 });
      expect((await get('/park', { authorization: 'Bearer anything' })).overloaded).toBe(false);
      expect((await get('/park', { cookie: 'erawatch_session=x' })).overloaded).toBe(false);
    } finally {
      installFrontDoor({ maxConcurrentRequests: 2, adminSecret: null });
    }
  });
});
