// The probe's HTTP/1.1 client: keep-alive sockets per origin, one exchange per socket at a time, behind the
// egress guard. The probe's own exchanges (undici's newer handler callbacks, as HttpTransport dispatches them)
// are written and parsed here; anything else dispatched to it (undici's `request`, which the auth side
// fetches use) goes to an undici Agent with the same guarded connector. A probe is a handful of small
// exchanges, and undici's layers per request (agent, pool, client, request object, handler wrapping, the
// parser's callbacks) made the HTTP client the largest part of the poller's CPU: at 60,000 nodes this cut
// the poller's CPU per probe by about a sixth (docs/poller.md); the measurement against undici's own Pool,
// and the guarantees against hostile servers, are in docs/probe.md "The HTTP client".
//
// Over TLS a new connection costs the prober many times an exchange, so: one SecureContext per agent (its CA
// set, built once), TLS sessions kept per pinned address, port and server name (bounded) and offered on the
// next connection, and connections kept for as long as the server says it keeps them (docs/probe.md "TLS").
// The certificate is checked before a byte is written; a failure names its reason (tls_untrusted,
// tls_expired, tls_name_mismatch), and the certificate's expiry travels with the exchange.
import net from 'node:net';
import tls from 'node:tls';
import { Dispatcher, type Agent } from 'undici';
import {
  createEgressAgent,
  resolveAllowed,
  type EgressAgentOptions,
  type EgressPolicy,
} from '@/lib/net/egress';

/** A socket or protocol failure, with a code the probe maps to an outcome (see outcomeOfError). */
export class H1Error extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** The peer certificate's expiry (epoch ms), when a TLS handshake got as far as a certificate. */
    readonly certificateExpiresAt: number | null = null,
  ) {
    super(message);
    this.name = 'H1Error';
  }
}

/** What the agent's TLS connections came to: full handshakes, resumed ones, and certificate failures. */
export interface TlsCounters {
  handshakes: number;
  resumed: number;
  failed: number;
}

/** TLS sessions kept at most: one per pinned address, port and server name; the oldest goes first. */
const MAX_TLS_SESSIONS = 100_000;

const MAX_HEAD_BYTES = 16 * 1024;
/** Informational (1xx) answers taken before the real one: an endless stream of them costs nothing more. */
const MAX_INFORMATIONAL = 8;
/** A server's `keep-alive: timeout=N` hint is trusted to this much less than N, as undici does. */
const KEEP_ALIVE_THRESHOLD_MS = 2_000;
const SWEEP_EVERY_MS = 1_000;

type NewHandler = Dispatcher.DispatchHandler & {
  onResponseStart: NonNullable<Dispatcher.DispatchHandler['onResponseStart']>;
};

function isNewHandler(handler: Dispatcher.DispatchHandler): handler is NewHandler {
  return typeof (handler as { onResponseStart?: unknown }).onResponseStart === 'function';
}

/**
 * What the exchange's handler holds to stop it; `abort` ends the exchange and closes its socket. The probe
 * reads small, capped bodies and never pauses, so pause and resume are only recorded.
 */
class Controller implements Dispatcher.DispatchController {
  aborted = false;
  paused = false;
  reason: Error | null = null;
  /** The TLS peer certificate's expiry (epoch ms) of the connection this exchange runs on; null: plain. */
  certificateExpiresAt: number | null = null;
  constructor(private readonly onAbort: (reason: Error) => void) {}
  abort(reason: Error): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.onAbort(reason);
  }
  pause(): void {
    this.paused = true;
  }
  resume(): void {
    this.paused = false;
  }
}

interface Target {
  /** The origin's key in the pool: scheme, connect host and port. */
  key: string;
  https: boolean;
  hostname: string;
  port: number;
  /** The Host header value. */
  host: string;
  servername: string | undefined;
}

type BodyMode = 'none' | 'length' | 'chunked' | 'close';

/** A request waiting for a socket: its handler, its bytes, and whether it may be sent twice. */
interface Outgoing {
  handler: NewHandler;
  payload: string;
  idempotent: boolean;
}

/** One exchange on one connection: parses the response head and body and feeds the handler. */
class Exchange {
  readonly controller: Controller;
  private head: Buffer | null = null;
  private started = false;
  private mode: BodyMode = 'none';
  private remaining = 0;
  private chunkState: 'size' | 'data' | 'data-crlf' | 'trailers' = 'size';
  private line: Buffer | null = null;
  private informational = 0;
  /** A byte of the response arrived: from then on a closed socket is the server's answer, not a retry. */
  sawBytes = false;
  done = false;
  reusable = true;

  constructor(
    readonly conn: Connection,
    readonly handler: NewHandler,
    readonly payload: string,
    /** Safe to send again (the dispatch said `idempotent`): never an initialize. */
    readonly idempotent: boolean,
    /** This request already went out once on a reused socket that closed before answering. */
    readonly retried: boolean,
  ) {
    this.controller = new Controller((reason) => conn.abort(this, reason));
  }

  /** Feeds bytes read from the socket; returns the bytes past the end of this response, if any. */
  read(data: Buffer): Buffer | null {
    if (data.length > 0) this.sawBytes = true;
    let rest: Buffer | null = data;
    while (rest && rest.length > 0 && !this.done) {
      rest = this.started ? this.body(rest) : this.readHead(rest);
    }
    return rest && rest.length > 0 ? rest : null;
  }

  private readHead(data: Buffer): Buffer | null {
    const buf = this.head ? Buffer.concat([this.head, data]) : data;
    const end = buf.indexOf('\r\n\r\n');
    if (end < 0) {
      if (buf.length > MAX_HEAD_BYTES)
        throw new H1Error('ERAWATCH_HTTP_HEADERS_OVERFLOW', 'response head too large');
      this.head = buf;
      return null;
    }
    if (end > MAX_HEAD_BYTES) throw new H1Error('ERAWATCH_HTTP_HEADERS_OVERFLOW', 'response head too large');
    this.head = null;
    const text = buf.toString('latin1', 0, end);
    const rest = buf.subarray(end + 4);
    const lineEnd = text.indexOf('\r\n');
    const statusLine = lineEnd < 0 ? text : text.slice(0, lineEnd);
    const match = /^HTTP\/1\.([01]) ([1-5]\d\d)(?: (.*))?$/.exec(statusLine);
    if (!match) throw new H1Error('ERAWATCH_HTTP_PARSE', `invalid status line: ${statusLine.slice(0, 80)}`);
    const minor = match[1];
    const status = Number(match[2]);
    // Informational answers (100 Continue, 103 Early Hints) precede the real one; a few of them at most.
    if (status < 200 && status !== 101) {
      this.informational += 1;
      if (this.informational > MAX_INFORMATIONAL) {
        throw new H1Error('ERAWATCH_HTTP_PARSE', `more than ${MAX_INFORMATIONAL} informational responses`);
      }
    }
    const headers: Record<string, string | string[]> = {};
    let pos = lineEnd < 0 ? text.length : lineEnd + 2;
    while (pos < text.length) {
      let eol = text.indexOf('\r\n', pos);
      if (eol < 0) eol = text.length;
      const colon = text.indexOf(':', pos);
      if (colon < 0 || colon > eol || colon === pos) {
        throw new H1Error('ERAWATCH_HTTP_PARSE', 'invalid header line');
      }
      const raw = text.slice(pos, colon);
      // RFC 9112 §5.1: no whitespace between the name and the colon (a smuggling vector), a token name.
      if (!goodResponseNames.has(raw)) {
        if (!TOKEN.test(raw)) throw new H1Error('ERAWATCH_HTTP_PARSE', 'invalid header name');
        if (goodResponseNames.size < 1_000) goodResponseNames.add(raw);
      }
      const name = raw.toLowerCase();
      const value = text.slice(colon + 1, eol).trim();
      const seen = headers[name];
      if (seen === undefined) headers[name] = value;
      else if (Array.isArray(seen)) seen.push(value);
      else headers[name] = [seen, value];
      pos = eol + 2;
    }
    if (status < 200 && status !== 101) return rest;
    if (status === 101) throw new H1Error('ERAWATCH_HTTP_PARSE', 'unexpected protocol upgrade');
    this.started = true;
    const connection = String(headers.connection ?? '').toLowerCase();
    if (connection.includes('close') || (minor === '0' && !connection.includes('keep-alive'))) {
      this.reusable = false;
    }
    this.conn.keepAliveHint(headers['keep-alive']);
    const transfer = String(headers['transfer-encoding'] ?? '').toLowerCase();
    const length = headers['content-length'];
    // RFC 9112 §6.1: a sender must not send both; a response with both is refused, as undici refuses it.
    if (transfer !== '' && length !== undefined) {
      throw new H1Error('ERAWATCH_HTTP_PARSE', 'transfer-encoding together with content-length');
    }
    if (status === 204 || status === 304) this.mode = 'none';
    else if (transfer !== '') {
      if (!transfer.endsWith('chunked'))
        throw new H1Error('ERAWATCH_HTTP_PARSE', `unsupported transfer-encoding`);
      this.mode = 'chunked';
    } else if (length !== undefined) {
      const n = Array.isArray(length) ? NaN : Number(length);
      if (!Number.isSafeInteger(n) || n < 0 || !/^\d+$/.test(String(length))) {
        throw new H1Error('ERAWATCH_HTTP_PARSE', 'invalid content-length');
      }
      this.mode = n === 0 ? 'none' : 'length';
      this.remaining = n;
    } else {
      this.mode = 'close';
      this.reusable = false;
    }
    this.handler.onResponseStart(this.controller, status, headers, match[3] ?? '');
    if (this.controller.aborted) return null;
    if (this.mode === 'none') this.finish();
    return rest;
  }

  private body(data: Buffer): Buffer | null {
    if (this.mode === 'close') {
      this.deliver(data);
      return null;
    }
    if (this.mode === 'length') {
      const take = Math.min(this.remaining, data.length);
      this.remaining -= take;
      this.deliver(take === data.length ? data : data.subarray(0, take));
      if (this.remaining === 0) this.finish();
      return take === data.length ? null : data.subarray(take);
    }
    return this.chunked(data);
  }

  private chunked(data: Buffer): Buffer | null {
    let pos = 0;
    while (pos < data.length && !this.done && !this.controller.aborted) {
      if (this.chunkState === 'data') {
        const take = Math.min(this.remaining, data.length - pos);
        this.deliver(data.subarray(pos, pos + take));
        pos += take;
        this.remaining -= take;
        if (this.remaining === 0) this.chunkState = 'data-crlf';
        continue;
      }
      const eol = data.indexOf('\n', pos);
      const part = data.subarray(pos, eol < 0 ? data.length : eol + 1);
      pos += part.length;
      const line = this.line ? Buffer.concat([this.line, part]) : part;
      if (eol < 0) {
        if (line.length > MAX_HEAD_BYTES) throw new H1Error('ERAWATCH_HTTP_PARSE', 'chunk line too long');
        this.line = line;
        continue;
      }
      this.line = null;
      // Every chunk line ends in CRLF: a bare LF is refused, as undici's parser refuses it.
      if (line.length < 2 || line[line.length - 2] !== 0x0d) {
        throw new H1Error('ERAWATCH_HTTP_PARSE', 'chunk line not ended by CRLF');
      }
      const text = line.toString('latin1', 0, line.length - 2);
      if (this.chunkState === 'data-crlf') {
        if (text !== '') throw new H1Error('ERAWATCH_HTTP_PARSE', 'missing CRLF after chunk');
        this.chunkState = 'size';
      } else if (this.chunkState === 'size') {
        const size = text.split(';', 1)[0]?.trim() ?? '';
        if (!/^[0-9a-fA-F]{1,12}$/.test(size)) throw new H1Error('ERAWATCH_HTTP_PARSE', 'invalid chunk size');
        const n = parseInt(size, 16);
        if (n === 0) this.chunkState = 'trailers';
        else {
          this.remaining = n;
          this.chunkState = 'data';
        }
      } else if (text === '') {
        this.finish();
      }
    }
    return pos < data.length ? data.subarray(pos) : null;
  }

  private deliver(chunk: Buffer): void {
    if (chunk.length > 0 && !this.controller.aborted) this.handler.onResponseData?.(this.controller, chunk);
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    if (!this.controller.aborted) this.handler.onResponseEnd?.(this.controller, {});
    this.conn.finished(this);
  }

  /** The socket ended: the end of a read-until-close body, else an error. */
  ended(): void {
    if (this.done) return;
    if (this.started && this.mode === 'close') {
      this.reusable = false;
      this.finish();
      return;
    }
    this.fail(new H1Error('ERAWATCH_SOCKET_CLOSED', 'other side closed'));
  }

  fail(err: Error): void {
    if (this.done) return;
    this.done = true;
    this.reusable = false;
    this.handler.onResponseError?.(this.controller, err);
  }
}

/** One keep-alive socket to one origin. */
class Connection {
  private exchange: Exchange | null = null;
  idleSince = 0;
  idleLimitMs: number;
  closed = false;
  /** Taken from the idle list: an answer may already have been lost to a close the server sent. */
  reused = false;

  constructor(
    readonly pool: Pool,
    readonly socket: net.Socket,
    keepAliveMs: number,
    /** The TLS peer certificate's expiry (epoch ms); null on plain HTTP. */
    readonly certificateExpiresAt: number | null = null,
  ) {
    this.idleLimitMs = keepAliveMs;
    socket.on('data', (data: Buffer) => this.onData(data));
    socket.on('end', () => this.onEnd());
    socket.on('error', (err: Error) => this.onError(err));
    socket.on('close', () => this.onEnd());
  }

  start(exchange: Exchange, payload: string): void {
    this.exchange = exchange;
    this.pool.running.add(this);
    this.socket.ref();
    this.socket.write(payload);
  }

  keepAliveHint(value: string | string[] | undefined): void {
    if (typeof value !== 'string') return;
    const m = /timeout=(\d+)/i.exec(value);
    if (!m) return;
    const hinted = Number(m[1]) * 1_000 - KEEP_ALIVE_THRESHOLD_MS;
    this.idleLimitMs = Math.min(this.pool.agent.keepAliveMs, Math.max(0, hinted));
  }

  /** The running exchange, taken off this connection. */
  private detach(): Exchange | null {
    const ex = this.exchange;
    this.exchange = null;
    this.pool.running.delete(this);
    return ex;
  }

  private onData(data: Buffer): void {
    const ex = this.exchange;
    if (!ex) {
      // Bytes nobody asked for: the connection is out of step, so it goes.
      this.destroy();
      return;
    }
    try {
      const rest = ex.read(data);
      if (rest && this.exchange === null) this.destroy();
    } catch (err) {
      this.detach();
      this.destroy();
      ex.fail(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private onEnd(): void {
    if (this.closed && !this.exchange) return;
    const ex = this.detach();
    this.destroy();
    if (ex && this.retry(ex)) return;
    ex?.ended();
  }

  private onError(err: Error): void {
    const ex = this.detach();
    this.destroy();
    if (ex && this.retry(ex)) return;
    ex?.fail(err);
  }

  /**
   * A reused socket that closes before the first byte of its answer was closed by the server while idle
   * (its close crossed our request): the request goes once more, on a fresh socket.
   */
  private retry(ex: Exchange): boolean {
    if (!this.reused || !ex.idempotent || ex.sawBytes || ex.retried || ex.done || ex.controller.aborted)
      return false;
    ex.done = true;
    this.pool.agent.resend(this.pool, ex);
    return true;
  }

  finished(ex: Exchange): void {
    if (this.exchange !== ex) return;
    this.detach();
    if (ex.reusable && !ex.controller.aborted && !this.closed && this.idleLimitMs > 0)
      this.pool.release(this);
    else this.destroy();
  }

  abort(ex: Exchange, reason: Error): void {
    if (this.exchange !== ex) return;
    this.detach();
    this.destroy();
    ex.fail(reason);
  }

  /** Ends the running exchange, if any, with `reason`, and the connection with it. */
  cut(reason: Error): void {
    const ex = this.detach();
    this.destroy();
    ex?.fail(reason);
  }

  destroy(): void {
    if (this.closed) return;
    this.closed = true;
    this.pool.running.delete(this);
    this.pool.forget(this);
    this.socket.destroy();
  }
}

/** The idle keep-alive connections to one origin. */
class Pool {
  readonly idle: Connection[] = [];
  /** Connections with an exchange on them (busy also counts the ones still connecting). */
  readonly running = new Set<Connection>();
  busy = 0;

  constructor(
    readonly agent: H1Agent,
    readonly target: Target,
  ) {}

  release(conn: Connection): void {
    this.busy--;
    conn.idleSince = Date.now();
    conn.socket.unref();
    this.idle.push(conn);
    this.agent.settled();
  }

  /** A connection left: idle or busy, it no longer counts. */
  forget(conn: Connection): void {
    const i = this.idle.indexOf(conn);
    if (i >= 0) this.idle.splice(i, 1);
    else this.busy--;
    this.agent.settled();
  }

  take(): Connection | null {
    const conn = this.idle.pop();
    if (!conn) return null;
    this.busy++;
    conn.reused = true;
    return conn;
  }
}

export interface H1AgentOptions extends EgressAgentOptions {
  /** How long an idle connection is kept (default 30 s), unless the server hints at less. */
  keepAliveTimeoutMs?: number;
}

interface KeptSession {
  session: Buffer;
  /** The certificate's expiry the session was verified with (epoch ms). */
  certificateExpiresAt: number | null;
}

/** The peer certificate's notAfter, in epoch ms; null when there is none to read. */
function certificateExpiry(socket: tls.TLSSocket): number | null {
  const cert = socket.getPeerCertificate();
  const at = cert && typeof cert.valid_to === 'string' ? Date.parse(cert.valid_to) : NaN;
  return Number.isFinite(at) ? at : null;
}

const CERT_FAILURES: Record<string, string> = {
  CERT_HAS_EXPIRED: 'the certificate has expired',
  CERT_NOT_YET_VALID: 'the certificate is not yet valid',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the certificate is self-signed and not trusted',
  SELF_SIGNED_CERT_IN_CHAIN: 'a self-signed certificate in the chain is not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the certificate was issued by a CA that is not trusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'the certificate was issued by a CA that is not trusted',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the certificate names another host',
};

/** The error a failed certificate check ends the connection with: its code is the verification's. */
function certificateError(socket: tls.TLSSocket, servername: string, expiresAt: number | null): H1Error {
  const code = String(socket.authorizationError ?? 'CERT_UNTRUSTED');
  let text = CERT_FAILURES[code] ?? 'the certificate failed verification';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    const cert = socket.getPeerCertificate();
    const named = cert && 'subject' in cert ? tls.checkServerIdentity(servername, cert) : undefined;
    if (named) text = named.message;
  }
  const until = expiresAt === null ? '' : ` (valid to ${new Date(expiresAt).toISOString()})`;
  return new H1Error(code, `${text}${until}`, expiresAt);
}

export class H1Agent extends Dispatcher {
  readonly keepAliveMs: number;
  /** TLS connections opened, resumed and refused over the agent's life (benchmarks and tests read them). */
  readonly tlsCounters: TlsCounters = { handshakes: 0, resumed: 0, failed: 0 };
  private readonly pools = new Map<string, Pool>();
  /** The agent's one SecureContext (its CA set, or the default roots): built once, not per connection. */
  private secureContext: tls.SecureContext | null = null;
  /** TLS sessions per pinned address, port and server name, offered on the next connection there. */
  private readonly sessions = new Map<string, KeptSession>();
  private readonly fallback: Agent;
  private readonly connectTimeoutMs: number;
  private readonly sweeper: ReturnType<typeof setInterval>;
  private closing: { resolve: () => void; promise: Promise<void> } | null = null;
  private isClosed = false;
  private destroyed: Error | null = null;
  private draining = false;

  constructor(
    private readonly policy: EgressPolicy,
    private readonly options: H1AgentOptions = {},
  ) {
    super();
    this.keepAliveMs = options.keepAliveTimeoutMs ?? 30_000;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.fallback = createEgressAgent(policy, options);
    this.sweeper = setInterval(() => this.sweep(), SWEEP_EVERY_MS);
    this.sweeper.unref();
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    if (!isNewHandler(handler)) return this.fallback.dispatch(opts, handler);
    if (this.isClosed) {
      queueMicrotask(() =>
        handler.onResponseError?.(
          new Controller(() => undefined),
          new H1Error('ERAWATCH_CLIENT_CLOSED', 'the probe agent is closed'),
        ),
      );
      return false;
    }
    let target: Target;
    let payload: string;
    try {
      target = targetOf(opts);
      payload = requestText(opts, target);
    } catch (err) {
      queueMicrotask(() =>
        handler.onResponseError?.(
          new Controller(() => undefined),
          err instanceof Error ? err : new Error(String(err)),
        ),
      );
      return false;
    }
    const pool = this.poolFor(target);
    const request: Outgoing = { handler, payload, idempotent: opts.idempotent === true };
    const reused = pool.take();
    if (reused) {
      this.beginReused(pool, reused, request);
      return true;
    }
    this.beginFresh(pool, request, false, null);
    return true;
  }

  /**
   * A reused socket gets the request only after one pass of reading: bytes already on their way (a late
   * second answer to the previous request) arrive while it is idle, poison it, and the request goes out on
   * a fresh socket instead of taking them as its answer.
   */
  private beginReused(pool: Pool, conn: Connection, request: Outgoing): void {
    setImmediate(() =>
      setImmediate(() => {
        if (conn.closed) this.beginFresh(pool, request, false, null);
        else this.begin(conn, request, false);
      }),
    );
  }

  /** The request once more, on a fresh socket, after a reused one closed before answering. */
  resend(pool: Pool, ex: Exchange): void {
    const request = { handler: ex.handler, payload: ex.payload, idempotent: ex.idempotent };
    this.beginFresh(pool, request, true, ex.controller);
  }

  private beginFresh(pool: Pool, request: Outgoing, retried: boolean, previous: Controller | null): void {
    const { handler } = request;
    pool.busy++;
    this.open(pool).then(
      (conn) => {
        if (this.destroyed) {
          conn.destroy();
          handler.onResponseError?.(previous ?? new Controller(() => undefined), this.destroyed);
          return;
        }
        if (previous?.aborted) {
          // The exchange was stopped while its retry was connecting: the fresh socket is still clean.
          conn.pool.release(conn);
          handler.onResponseError?.(previous, previous.reason ?? new Error('aborted'));
          return;
        }
        this.begin(conn, request, retried);
      },
      (err: unknown) => {
        pool.busy--;
        this.settled();
        handler.onResponseError?.(
          previous ?? new Controller(() => undefined),
          err instanceof Error ? err : new Error(String(err)),
        );
      },
    );
  }

  private begin(conn: Connection, request: Outgoing, retried: boolean): void {
    const { handler, payload } = request;
    const ex = new Exchange(conn, handler, payload, request.idempotent, retried);
    ex.controller.certificateExpiresAt = conn.certificateExpiresAt;
    handler.onRequestStart?.(ex.controller, {});
    if (ex.controller.aborted) {
      // Stopped before a byte was written: the connection is still clean.
      ex.done = true;
      conn.pool.release(conn);
      handler.onResponseError?.(ex.controller, ex.controller.reason ?? new Error('aborted'));
      return;
    }
    conn.start(ex, payload);
  }

  private poolFor(target: Target): Pool {
    let pool = this.pools.get(target.key);
    if (!pool) {
      pool = new Pool(this, target);
      this.pools.set(target.key, pool);
    }
    return pool;
  }

  private async open(pool: Pool): Promise<Connection> {
    const t = pool.target;
    const address = await resolveAllowed(t.hostname, this.policy, this.options.lookup);
    if (t.https) return this.openTls(pool, address);
    const socket = await new Promise<net.Socket>((resolve, reject) => {
      const local = this.options.localAddress ? { localAddress: this.options.localAddress } : {};
      const s = net.connect({ host: address, port: t.port, ...local });
      const timer = setTimeout(() => {
        s.destroy();
        reject(new H1Error('ERAWATCH_CONNECT_TIMEOUT', `connect timeout after ${this.connectTimeoutMs} ms`));
      }, this.connectTimeoutMs);
      const ready = (): void => {
        clearTimeout(timer);
        s.off('error', failed);
        s.setNoDelay(true);
        resolve(s);
      };
      const failed = (err: Error): void => {
        clearTimeout(timer);
        s.destroy();
        reject(err);
      };
      s.once('connect', ready);
      s.once('error', failed);
    });
    return new Connection(pool, socket, this.keepAliveMs);
  }

  private context(): tls.SecureContext {
    this.secureContext ??= tls.createSecureContext(
      this.options.tls?.ca !== undefined ? { ca: this.options.tls.ca } : {},
    );
    return this.secureContext;
  }

  /**
   * A TLS connection: the agent's SecureContext, the session kept for this address, port and name offered
   * for resumption, and the certificate checked (chain, dates, name) before the connection is handed out.
   * Only a verified connection's sessions are kept.
   */
  private async openTls(pool: Pool, address: string): Promise<Connection> {
    const t = pool.target;
    const verify = this.options.tls?.rejectUnauthorized !== false;
    const sessionKey = `${address}|${t.port}|${t.servername ?? ''}`;
    const kept = this.sessions.get(sessionKey);
    const name = t.servername ?? address;
    return new Promise<Connection>((resolve, reject) => {
      const local = this.options.localAddress ? { localAddress: this.options.localAddress } : {};
      const s = tls.connect({
        host: address,
        port: t.port,
        servername: t.servername,
        ALPNProtocols: ['http/1.1'],
        secureContext: this.context(),
        // Checked below, so the failure keeps the certificate (its expiry) and names its reason.
        rejectUnauthorized: false,
        ...(kept ? { session: kept.session } : {}),
        ...local,
      });
      let verified = false;
      let expiresAt: number | null = null;
      let pending: Buffer | null = null;
      const keep = (session: Buffer): void => {
        if (this.sessions.size >= MAX_TLS_SESSIONS && !this.sessions.has(sessionKey)) {
          const oldest = this.sessions.keys().next().value;
          if (oldest !== undefined) this.sessions.delete(oldest);
        }
        this.sessions.delete(sessionKey);
        this.sessions.set(sessionKey, { session, certificateExpiresAt: expiresAt });
      };
      // TLS 1.3 tickets come after the handshake (sometimes before secureConnect is seen): keep the last.
      s.on('session', (session: Buffer) => {
        if (verified) keep(session);
        else pending = session;
      });
      const timer = setTimeout(() => {
        s.destroy();
        reject(new H1Error('ERAWATCH_CONNECT_TIMEOUT', `connect timeout after ${this.connectTimeoutMs} ms`));
      }, this.connectTimeoutMs);
      const ready = (): void => {
        clearTimeout(timer);
        s.off('error', failed);
        const resumed = s.isSessionReused();
        expiresAt = resumed && kept ? kept.certificateExpiresAt : certificateExpiry(s);
        if (verify && !s.authorized) {
          this.tlsCounters.failed += 1;
          this.sessions.delete(sessionKey);
          const err = certificateError(s, name, expiresAt);
          s.destroy();
          reject(err);
          return;
        }
        this.tlsCounters.handshakes += 1;
        if (resumed) this.tlsCounters.resumed += 1;
        verified = true;
        if (pending) keep(pending);
        pending = null;
        s.setNoDelay(true);
        resolve(new Connection(pool, s, this.keepAliveMs, expiresAt));
      };
      const failed = (err: Error): void => {
        clearTimeout(timer);
        this.sessions.delete(sessionKey);
        s.destroy();
        reject(err);
      };
      s.once('secureConnect', ready);
      s.once('error', failed);
    });
  }

  /** Idle connections past their keep-alive go; an empty pool goes with them. */
  private sweep(): void {
    const now = Date.now();
    for (const [key, pool] of this.pools) {
      for (const conn of [...pool.idle]) if (now - conn.idleSince >= conn.idleLimitMs) conn.destroy();
      if (pool.idle.length === 0 && pool.busy <= 0) this.pools.delete(key);
    }
  }

  /** While closing: idle connections go at once, and close resolves when no exchange is left. */
  settled(): void {
    if (!this.closing || this.draining) return;
    // Each destroy reports back here; one pass over every pool is enough.
    this.draining = true;
    try {
      for (const pool of this.pools.values()) for (const conn of [...pool.idle]) conn.destroy();
    } finally {
      this.draining = false;
    }
    for (const pool of this.pools.values()) if (pool.busy > 0) return;
    this.closing.resolve();
  }

  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    if (!this.closing) {
      this.isClosed = true;
      clearInterval(this.sweeper);
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.closing = { resolve, promise };
      this.settled();
    }
    const done = Promise.all([this.closing.promise, this.fallback.close()]).then(() => undefined);
    if (callback) {
      void done.then(callback);
      return;
    }
    return done;
  }

  /**
   * Ends every connection at once: idle ones, and running exchanges with an error (the given one, else
   * ERAWATCH_CLIENT_DESTROYED); an exchange still connecting ends with it when its socket opens.
   */
  override destroy(): Promise<void>;
  override destroy(err: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(err: Error | null, callback: () => void): void;
  override destroy(a?: Error | null | (() => void), b?: () => void): Promise<void> | void {
    this.isClosed = true;
    clearInterval(this.sweeper);
    const err =
      a instanceof Error ? a : new H1Error('ERAWATCH_CLIENT_DESTROYED', 'the probe agent was destroyed');
    this.destroyed ??= err;
    for (const pool of this.pools.values()) {
      for (const conn of [...pool.idle]) conn.destroy();
      for (const conn of [...pool.running]) conn.cut(err);
    }
    const done = this.fallback.destroy(a instanceof Error ? a : null).then(() => undefined);
    const callback = typeof a === 'function' ? a : b;
    if (callback) {
      void done.then(callback);
      return;
    }
    return done;
  }
}

/** Targets by origin and Host header: a probe of a known node parses no URL. */
const targets = new Map<string, Target>();
const MAX_CACHED_TARGETS = 100_000;

function targetOf(opts: Dispatcher.DispatchOptions): Target {
  const headers = (opts.headers ?? {}) as Record<string, string | undefined>;
  const originText = typeof opts.origin === 'string' ? opts.origin : (opts.origin?.origin ?? '');
  const cacheKey = `${originText} ${headers.host ?? ''}`;
  const cached = targets.get(cacheKey);
  if (cached) return cached;
  if (!originText) throw new H1Error('ERAWATCH_HTTP_REQUEST', 'no origin');
  const origin = new URL(originText);
  const https = origin.protocol === 'https:';
  if (!https && origin.protocol !== 'http:') {
    throw new H1Error('ERAWATCH_HTTP_REQUEST', `unsupported scheme ${origin.protocol}`);
  }
  const port = origin.port ? Number(origin.port) : https ? 443 : 80;
  const hostname = origin.hostname.startsWith('[') ? origin.hostname.slice(1, -1) : origin.hostname;
  const host = headers.host ?? origin.host;
  // TLS names the server from the Host header (a pinned address keeps the URL's name), never an IP.
  const hostName = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : (host.split(':')[0] ?? '');
  const servername = https && net.isIP(hostName) === 0 && hostName !== '' ? hostName : undefined;
  // Over TLS the name is part of the origin: a connection verified for one name never serves another.
  const key = https
    ? `${origin.protocol}//${origin.host} ${servername ?? ''}`
    : `${origin.protocol}//${origin.host}`;
  const target = { key, https, hostname, port, host, servername };
  if (targets.size >= MAX_CACHED_TARGETS) targets.clear();
  targets.set(cacheKey, target);
  return target;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Header names already checked against TOKEN: the probe sends the same few on every request. */
const goodNames = new Set<string>();
/** The same for response header names: servers send the same few on every answer. */
const goodResponseNames = new Set<string>();

function requestText(opts: Dispatcher.DispatchOptions, target: Target): string {
  const method = opts.method;
  if (!TOKEN.test(method)) throw new H1Error('ERAWATCH_HTTP_REQUEST', `invalid method ${method}`);
  const path = opts.path;
  if (!path.startsWith('/') || /[\s]/.test(path)) throw new H1Error('ERAWATCH_HTTP_REQUEST', 'invalid path');
  const body = opts.body;
  if (body !== null && body !== undefined && typeof body !== 'string') {
    throw new H1Error('ERAWATCH_HTTP_REQUEST', 'the probe sends string bodies only');
  }
  let text = `${method} ${path} HTTP/1.1\r\nhost: ${target.host}\r\nconnection: keep-alive\r\n`;
  const headers = (opts.headers ?? {}) as Record<string, string>;
  for (const name in headers) {
    if (name === 'host' || name === 'connection' || name === 'content-length') continue;
    const value = headers[name];
    if (value === undefined) continue;
    if (!goodNames.has(name)) {
      if (!TOKEN.test(name)) throw new H1Error('ERAWATCH_HTTP_REQUEST', `invalid header ${name}`);
      if (goodNames.size < 1_000) goodNames.add(name);
    }
    if (value.includes('\r') || value.includes('\n') || value.includes('\0')) {
      throw new H1Error('ERAWATCH_HTTP_REQUEST', `invalid header ${name}`);
    }
    text += `${name}: ${value}\r\n`;
  }
  if (typeof body === 'string') text += `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  else text += method === 'POST' || method === 'PUT' ? 'content-length: 0\r\n\r\n' : '\r\n';
  return text;
}
