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
import { performance } from 'node:perf_hooks';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import proxyaddr from 'proxy-addr';
import { INTERNAL_REQUEST_HEADER, internalRequestNonce } from '@/lib/net/internal-requests';
import type { Settings } from '@/lib/settings';

/**
 * The request header the subscriber writes: `<nonce> <verdict> <socket address>`, the verdict `ok` (served; any
 * slot it needs is held), `overloaded` (answered 429 before any route runs) or `body` (its slot is taken by the
 * API wrapper once its body has arrived: `enterAfterBody`).
 */
export const STAMP_HEADER = 'x-erawatch-client';
const STATE = Symbol.for('erawatch.front-door');
/** A request body must have arrived within this, whatever its rate; else 408 and the connection is closed. */
export const BODY_TIMEOUT_MS = 10_000;
/** After its first BODY_FLOOR_GRACE_MS, a body still arriving must have come at least this fast on average. */
export const BODY_FLOOR_BYTES_PER_S = 1_024;
export const BODY_FLOOR_GRACE_MS = 2_000;
/** /readyz has slots of its own, so load balancers' probes never wait behind API traffic. */
export const READINESS_SLOTS = 4;
const BODY_CHECK_MS = 250;
interface FrontDoorState {
  nonce: string;
  installed: boolean;
  limit: number;
  /**
   * The slots open now (at most `limit`): fewer while this process's event loop lags (the CPU it gets is shared
   * by more requests than it can answer in time), so what is admitted is answered in time and the rest get 429
   * at once. See `openSlotsAfter`.
   */
  open: number;
  lagWatch: NodeJS.Timeout | null;
  /** How long the requests that gave their slot back since the last sample held it, in ms. */
  held: number[];
  /**
   * Requests admitted per sample while the loop lags: most requests are handled within one turn of the event
   * loop (the store answers synchronously), so in-flight counts stay low while the unparsed ones wait in their
   * sockets behind them. A lagging loop admits fewer per turn; the rest get 429 at once. Infinity when quick.
   */
  budget: number;
  admitted: number;
  /** Whether requests without credentials are held to their share (not in local mode: nobody has any). */
  shareAnonymous: boolean;
  inFlight: number;
  anonymousInFlight: number;
  readinessInFlight: number;
  /** Requests answered by the door itself (429, 408), never handed to the application. */
  refused: WeakMap<IncomingMessage, { status: number; code: string; detail: string }>;
  servers: WeakSet<object>;
}
type GlobalWithState = typeof globalThis & { [STATE]?: FrontDoorState };

function state(): FrontDoorState {
  const g = globalThis as GlobalWithState;
  g[STATE] ??= {
    nonce: randomBytes(18).toString('base64url'),
    installed: false,
    limit: 0,
    open: 0,
    lagWatch: null,
    held: [],
    budget: Number.POSITIVE_INFINITY,
    admitted: 0,
    shareAnonymous: false,
    inFlight: 0,
    anonymousInFlight: 0,
    readinessInFlight: 0,
    refused: new WeakMap(),
    servers: new WeakSet(),
  };
  return g[STATE];
}

/** Container and kubelet health checks are never refused for load: they only say the process is up. */
function isHealthCheck(url: string | undefined): boolean {
  return url === '/healthz' || (url?.startsWith('/healthz?') ?? false);
}

/**
 * The build's own files (scripts, styles, fonts, the icon): read from disk, the same for everyone, and what most
 * of a page load is. They hold no slot, so a page that was let in is never half-loaded by its own assets.
 */
function isStaticAsset(url: string | undefined): boolean {
  return (
    url !== undefined &&
    (url.startsWith('/_next/static/') || /^\/(?:favicon\.ico|icon\.svg)(?:\?|$)/.test(url))
  );
}

function isReadiness(url: string | undefined): boolean {
  return url === '/readyz' || (url?.startsWith('/readyz?') ?? false);
}

/** How many slots requests without credentials may hold at once: a quarter of them (at least one). */
export function anonymousShare(limit: number): number {
  return Math.max(1, Math.floor(limit / 4));
}

type HeaderBag = Headers | IncomingMessage['headers'];

function header(headers: HeaderBag, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const v = headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** A request that sends a credential (a bearer header or a session cookie); whether it is valid is the API's. */
function sendsCredentials(headers: HeaderBag): boolean {
  if (header(headers, 'authorization') !== undefined) return true;
  return /(?:^|;)\s*erawatch_session=/.test(header(headers, 'cookie') ?? '');
}

function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** How often the event loop's lag is measured. */
const LAG_SAMPLE_MS = 500;
/** A lag above this closes slots (a quarter of those open at a time); one below LAG_LOW_MS reopens one. */
const LAG_HIGH_MS = 200;
const LAG_LOW_MS = 50;
/** Slots that stay open whatever the lag (or the limit, when lower). */
const MIN_OPEN_SLOTS = 8;

/** Requests that held their slots longer than this (their median, over a sample) mean too many are admitted. */
const SLOW_HOLD_MS = 1_000;

/**
 * The slots open after one sample. Under overload the time a request waits is not spent waiting for a slot but
 * on the event loop, which every admitted request shares: 32 requests in flight on a starved CPU each took 32
 * times their own work, and so did every request waiting to be parsed behind them. So the slots open follow
 * how the process keeps up: when the loop lags by more than LAG_HIGH_MS, or the requests that finished held
 * their slots for more than SLOW_HOLD_MS (their median), a quarter of the open slots close (never below
 * MIN_OPEN_SLOTS); when the loop is quick and requests finish quickly, one reopens, up to the limit.
 */
export function openSlotsAfter(open: number, limit: number, lagMs: number, medianHeldMs = 0): number {
  const floor = Math.min(MIN_OPEN_SLOTS, limit);
  if (lagMs > LAG_HIGH_MS || medianHeldMs > SLOW_HOLD_MS) return Math.max(floor, Math.floor(open * 0.75));
  if (lagMs < LAG_LOW_MS && medianHeldMs < SLOW_HOLD_MS / 4) return Math.min(limit, open + 1);
  return Math.max(floor, Math.min(limit, open));
}

/** Never fewer admitted per sample than this. */
const MIN_BUDGET = 8;
/** At most this many admitted in the sample after a lagging one that admitted fewer than MIN_BUDGET. */
const QUIET_LAG_BUDGET = 32;

/**
 * Requests to admit in the next sample: while the loop lags by more than LAG_HIGH_MS, three quarters of what was
 * admitted in the last one (at least MIN_BUDGET); once it is quick again, a quarter more each sample, and no
 * bound once it is well above what is admitted. (Growing back while the loop still lags by 50 to 200 ms admits
 * the work of a flood's first second again: `bench api` then leaves requests unanswered for 10 s.)
 */
export function budgetAfter(budget: number, admitted: number, lagMs: number): number {
  if (lagMs > LAG_HIGH_MS) {
    // A lag in a quiet sample is not this process's load (another process, the first compilations after
    // start): the first requests after it are served, and a burst that follows is still not admitted whole.
    if (admitted < MIN_BUDGET) return Math.min(budget, QUIET_LAG_BUDGET);
    return Math.max(MIN_BUDGET, Math.floor(Math.min(budget, admitted) * 0.75));
  }
  if (lagMs < LAG_LOW_MS) {
    if (!Number.isFinite(budget)) return budget;
    const next = Math.ceil(budget * 1.25) + 1;
    return next > admitted * 4 && next > 1_000 ? Number.POSITIVE_INFINITY : next;
  }
  return budget;
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function watchLag(s: FrontDoorState): void {
  if (s.lagWatch) return;
  let last = performance.now();
  s.lagWatch = setInterval(() => {
    const now = performance.now();
    const lag = now - last - LAG_SAMPLE_MS;
    s.open = openSlotsAfter(s.open, s.limit, lag, median(s.held));
    s.budget = budgetAfter(s.budget, s.admitted, lag);
    s.admitted = 0;
    s.held = [];
    last = now;
  }, LAG_SAMPLE_MS);
  s.lagWatch.unref();
}

/** Takes one slot; null when the slots open (or, without credentials, the anonymous share) are taken. */
function takeSlot(s: FrontDoorState, anonymous: boolean): (() => void) | null {
  if (s.limit > 0) {
    if (s.inFlight >= s.open || s.admitted >= s.budget) return null;
    if (anonymous && s.anonymousInFlight >= anonymousShare(s.limit)) return null;
  }
  s.admitted++;
  s.inFlight++;
  if (anonymous) s.anonymousInFlight++;
  let released = false;
  const takenAt = performance.now();
  return () => {
    if (released) return;
    released = true;
    if (s.held.length < 10_000) s.held.push(performance.now() - takenAt);
    s.inFlight--;
    if (anonymous) s.anonymousInFlight--;
  };
}

const OVERLOADED = {
  status: 429,
  code: 'overloaded',
  detail: 'the server is serving as many requests as it may; retry in 1 s',
};

function answer(res: ServerResponse, refusal: { status: number; code: string; detail: string }): void {
  if (res.headersSent || res.writableEnded) return;
  res.writeHead(refusal.status, {
    'content-type': 'application/problem+json',
    'cache-control': 'no-store',
    ...(refusal.status === 429 ? { 'retry-after': '1' } : { connection: 'close' }),
  });
  res.end(
    JSON.stringify({
      type: `https://erawatch.dev/problems/${refusal.code}`,
      title: refusal.status === 429 ? 'Too Many Requests' : 'Request Timeout',
      status: refusal.status,
      detail: refusal.detail,
    }),
  );
}

/**
 * Puts the door in front of a server's request listeners (once per server): a request it refused is answered
 * here and never reaches the application, so a refusal costs no routing or rendering.
 */
function guardServer(s: FrontDoorState, server: Server): void {
  if (s.servers.has(server)) return;
  s.servers.add(server);
  const listeners = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const refusal = s.refused.get(req);
    if (refusal) {
      answer(res, refusal);
      return;
    }
    for (const listener of listeners) listener.call(server, req, res);
  });
}

/**
 * Cuts a body that has not arrived within BODY_TIMEOUT_MS, or that arrives slower than BODY_FLOOR_BYTES_PER_S
 * after its first BODY_FLOOR_GRACE_MS: 408, and the connection is closed.
 */
function guardBody(request: IncomingMessage, response: ServerResponse, socket: Socket): void {
  const started = Date.now();
  const base = socket.bytesRead;
  const timer = setInterval(() => {
    if (request.complete || response.writableEnded || socket.destroyed) {
      clearInterval(timer);
      return;
    }
    const elapsed = Date.now() - started;
    const arrived = socket.bytesRead - base;
    const tooSlow = elapsed >= BODY_FLOOR_GRACE_MS && arrived < (BODY_FLOOR_BYTES_PER_S * elapsed) / 1000;
    if (elapsed < BODY_TIMEOUT_MS && !tooSlow) return;
    clearInterval(timer);
    answer(response, {
      status: 408,
      code: 'body_timeout',
      detail: tooSlow
        ? `the request body arrived slower than ${BODY_FLOOR_BYTES_PER_S} bytes/s`
        : `the request body did not arrive within ${BODY_TIMEOUT_MS / 1000} s`,
    });
    // The answer is flushed, then the connection goes: the rest of the body is never read.
    response.once('finish', () => socket.destroy());
    if (response.headersSent && !response.writableEnded) socket.destroy();
  }, BODY_CHECK_MS);
  timer.unref();
  response.once('close', () => clearInterval(timer));
}

/**
 * Subscribes the stamp (once per process). A request holds one of `maxConcurrentRequests` slots while it is
 * handled: one without a body from its arrival, one with a body (the API's writes) only once the body has
 * arrived (`enterAfterBody`), and a body that does not arrive in time is cut (`guardBody`). Without
 * credentials, requests hold at most `anonymousShare` of the slots (unless in local mode, where nobody sends
 * any). /readyz has READINESS_SLOTS of its own; /healthz is never refused. Requests beyond that are answered
 * 429 `overloaded` by the door itself, before the application sees them.
 */
export function installFrontDoor(settings: Pick<Settings, 'maxConcurrentRequests' | 'adminSecret'>): void {
  const s = state();
  s.limit = settings.maxConcurrentRequests;
  s.open = s.limit;
  if (s.limit > 0) watchLag(s);
  s.shareAnonymous = (settings.adminSecret ?? null) !== null;
  if (s.installed) return;
  s.installed = true;
  diagnostics.subscribe('http.server.request.start', (message) => {
    const { request, response, socket, server } = message as {
      request: IncomingMessage;
      response: ServerResponse;
      socket: Socket;
      server?: Server;
    };
    if (server) guardServer(s, server);
    let verdict = 'ok';
    // This process's own server-side reads of its API run inside a page request that already holds a slot.
    const internal = request.headers[INTERNAL_REQUEST_HEADER] === internalRequestNonce();
    delete request.headers[INTERNAL_REQUEST_HEADER];
    if (!internal && !isHealthCheck(request.url) && !isStaticAsset(request.url)) {
      let release: (() => void) | null = null;
      if (isReadiness(request.url)) {
        if (s.limit > 0 && s.readinessInFlight >= READINESS_SLOTS) verdict = 'overloaded';
        else {
          s.readinessInFlight++;
          release = () => s.readinessInFlight--;
        }
      } else if (hasBody(request)) {
        verdict = 'body';
        guardBody(request, response, socket);
      } else {
        release = takeSlot(s, s.shareAnonymous && !sendsCredentials(request.headers));
        if (release === null) verdict = 'overloaded';
      }
      if (release) response.once('close', release);
      if (verdict === 'overloaded') s.refused.set(request, OVERLOADED);
    }
    request.headers[STAMP_HEADER] = `${s.nonce} ${verdict} ${socket.remoteAddress ?? 'unknown'}`;
  });
}

/**
 * For a request stamped `body`, once its body has arrived: takes its slot (the release function, called when
 * the request has been handled), or null when none is free (answer 429 `overloaded`). A request without that
 * stamp (in-process tests, this process's own reads) needs none: a no-op release.
 */
export function enterAfterBody(headers: Headers): (() => void) | null {
  const stamp = readStamp(headers);
  if (stamp?.verdict !== 'body') return () => {};
  const s = state();
  return takeSlot(s, s.shareAnonymous && !sendsCredentials(headers));
}

/** Whether the request's slot waits for its body (the API wrapper reads the body first). */
export function awaitsBody(headers: Headers): boolean {
  return readStamp(headers)?.verdict === 'body';
}

interface Stamp {
  verdict: string;
  address: string;
}

function readStamp(headers: Headers): Stamp | null {
  const value = headers.get(STAMP_HEADER);
  if (value === null) return null;
  const [nonce, verdict, address] = value.split(' ');
  if (nonce !== state().nonce || !address) return null;
  return { verdict: verdict ?? 'ok', address };
}

/** True when the request came in beyond the concurrency limit. */
export function arrivedOverloaded(headers: Headers): boolean {
  return readStamp(headers)?.verdict === 'overloaded';
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
