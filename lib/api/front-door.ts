// What the web process knows of a request before any route runs: the address of the socket it came in on,
// and whether it arrived while the process already served its limit of requests.
//
// Route handlers of the App Router see a Request, not the socket. So a subscriber to Node's
// `http.server.request.start` diagnostics channel, installed once at start-up (instrumentation.ts, which runs in
// every server: `next start`, the standalone server of `erawatch serve`, the demo), writes the socket's address
// into a request header, prefixed by a random per-process nonce. Any value the client sent under that name is
// overwritten, and one that did not come from the subscriber lacks the nonce: a client cannot choose its own
// address. `X-Forwarded-For` is believed only across ERAWATCH_TRUSTED_PROXIES (proxy-addr).
import { randomBytes } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import proxyaddr from 'proxy-addr';
import { INTERNAL_REQUEST_HEADER, internalRequestNonce } from '@/lib/net/internal-requests';
import type { Settings } from '@/lib/settings';

/** The request header the subscriber writes: `<nonce> <ok|overloaded> <socket address>`. */
export const STAMP_HEADER = 'x-erawatch-client';
const STATE = Symbol.for('erawatch.front-door');
interface FrontDoorState {
  nonce: string;
  installed: boolean;
  limit: number;
  inFlight: number;
}
type GlobalWithState = typeof globalThis & { [STATE]?: FrontDoorState };

function state(): FrontDoorState {
  const g = globalThis as GlobalWithState;
  g[STATE] ??= {
    nonce: randomBytes(18).toString('base64url'),
    installed: false,
    limit: 0,
    inFlight: 0,
  };
  return g[STATE];
}

/** Container and kubelet health checks are never refused for load: they only say the process is up. */
function isHealthCheck(url: string | undefined): boolean {
  return url === '/healthz' || (url?.startsWith('/healthz?') ?? false);
}

/**
 * Subscribes the stamp (once per process). Requests beyond `maxConcurrentRequests` in flight are stamped
 * `overloaded` and answered 429 by the proxy (proxy.ts) before any route runs; they are not counted.
 */
export function installFrontDoor(settings: Pick<Settings, 'maxConcurrentRequests'>): void {
  const s = state();
  s.limit = settings.maxConcurrentRequests;
  if (s.installed) return;
  s.installed = true;
  diagnostics.subscribe('http.server.request.start', (message) => {
    const { request, response, socket } = message as {
      request: IncomingMessage;
      response: ServerResponse;
      socket: Socket;
    };
    let verdict = 'ok';
    // This process's own server-side reads of its API run inside a page request that already holds a slot.
    const internal = request.headers[INTERNAL_REQUEST_HEADER] === internalRequestNonce();
    delete request.headers[INTERNAL_REQUEST_HEADER];
    if (!internal && !isHealthCheck(request.url)) {
      if (s.limit > 0 && s.inFlight >= s.limit) verdict = 'overloaded';
      else {
        s.inFlight++;
        response.once('close', () => {
          s.inFlight--;
        });
      }
    }
    request.headers[STAMP_HEADER] = `${s.nonce} ${verdict} ${socket.remoteAddress ?? 'unknown'}`;
  });
}

interface Stamp {
  overloaded: boolean;
  address: string;
}

function readStamp(headers: Headers): Stamp | null {
  const value = headers.get(STAMP_HEADER);
  if (value === null) return null;
  const [nonce, verdict, address] = value.split(' ');
  if (nonce !== state().nonce || !address) return null;
  return { overloaded: verdict === 'overloaded', address };
}

/** True when the request came in beyond the concurrency limit. */
export function arrivedOverloaded(headers: Headers): boolean {
  return readStamp(headers)?.overloaded ?? false;
}

/**
 * Writes the stamp a server would have written for a request from `address` (in-process route tests and
 * benchmarks, which have no socket).
 */
export function stampClientAddress(headers: Headers, address: string): void {
  headers.set(STAMP_HEADER, `${state().nonce} ok ${address}`);
}

const compiled = new Map<string, (addr: string, i: number) => boolean>();

function trustFor(list: readonly string[]): (addr: string, i: number) => boolean {
  const key = list.join(',');
  let fn = compiled.get(key);
  if (!fn) {
    fn = proxyaddr.compile([...list]);
    compiled.set(key, fn);
  }
  return fn;
}

/**
 * The calling client's address: the socket's, or across trusted proxies the nearest untrusted address of
 * `X-Forwarded-For`. `unknown` when the request carries no stamp of this process.
 */
export function clientAddress(req: Request, settings: Pick<Settings, 'trustedProxies'>): string {
  const stamp = readStamp(req.headers);
  if (stamp === null) return 'unknown';
  if (settings.trustedProxies.length === 0) return stamp.address;
  const forwarded = req.headers.get('x-forwarded-for');
  const like = {
    socket: { remoteAddress: stamp.address },
    connection: { remoteAddress: stamp.address },
    headers: forwarded === null ? {} : { 'x-forwarded-for': forwarded },
  };
  return proxyaddr(like as unknown as IncomingMessage, trustFor(settings.trustedProxies));
}
