// Streamable HTTP transport for the probe: one POST per JSON-RPC message over a shared undici dispatcher,
// one overall deadline per exchange, a byte cap after decompression, no redirects, SSE read until our id.
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Transform } from 'node:stream';
import type { Dispatcher } from 'undici';
import { pinnedOrigin } from '@/lib/net/egress';
import { isJsonRpcResponse, settleOutcome, type BodyReading } from './classify';
import { SseReader } from './sse';
import type { Exchange, JsonRpcNotification, JsonRpcRequest, ProbeTransport, SendOptions } from './transport';
import type { Outcome } from './types';

export interface HttpTransportConfig {
  url: URL;
  dispatcher: Dispatcher;
  /** Connect here instead of the URL's host (already checked by the egress guard); Host and SNI stay the URL's. */
  address: string | null;
  headers?: Record<string, string>;
  attributionHeader?: string;
  now: () => number;
}

const ACCEPT = 'application/json, text/event-stream';
const NON_BODY_DUMP_LIMIT = 64 * 1024;
/** How long the rest of an SSE stream that already gave our answer may take to end before it is cut. */
const SSE_TAIL_MS = 250;

/** Maps a socket, DNS, TLS or guard error to an outcome; anything unknown is `network_error`. */
export function outcomeOfError(err: unknown): { outcome: Outcome; detail: string } {
  const e = err as { code?: unknown; message?: unknown; cause?: { code?: unknown } } | null;
  const code = typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : '';
  const detail = `${code ? `${code}: ` : ''}${typeof e?.message === 'string' ? e.message : String(err)}`;
  const table: Array<[RegExp, Outcome]> = [
    [/^ERAWATCH_EGRESS_REFUSED$/, 'egress_refused'],
    [/^ECONNREFUSED$/, 'refused'],
    [/^(ECONNRESET|EPIPE)$/, 'reset'],
    [
      /^(UND_ERR_SOCKET|UND_ERR_RES_CONTENT_LENGTH_MISMATCH|ECONNABORTED|UND_ERR_CLOSED|UND_ERR_DESTROYED|ERAWATCH_SOCKET_CLOSED|ERAWATCH_CLIENT_CLOSED|ERAWATCH_CLIENT_DESTROYED)$/,
      'closed',
    ],
    [/^(ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_FAIL|ENODATA)$/, 'dns_failed'],
    [
      /^(UND_ERR_CONNECT_TIMEOUT|UND_ERR_HEADERS_TIMEOUT|UND_ERR_BODY_TIMEOUT|ETIMEDOUT|ERAWATCH_CONNECT_TIMEOUT)$/,
      'timeout',
    ],
    // The certificate's own failures name their reason; a handshake that breaks otherwise is tls_error.
    [/^CERT_HAS_EXPIRED$/, 'tls_expired'],
    [/^ERR_TLS_CERT_ALTNAME_INVALID$/, 'tls_name_mismatch'],
    [
      /^(CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|INVALID_CA|PATH_LENGTH_EXCEEDED|INVALID_PURPOSE|HOSTNAME_MISMATCH)/,
      'tls_untrusted',
    ],
    [/^(ERR_TLS|ERR_SSL|ERR_OSSL)/, 'tls_error'],
  ];
  for (const [pattern, outcome] of table) if (pattern.test(code)) return { outcome, detail };
  return { outcome: 'network_error', detail };
}

function headerString(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

function decoderFor(encoding: string | null): Transform | null | 'unsupported' {
  if (!encoding || encoding === 'identity') return null;
  if (encoding === 'gzip' || encoding === 'x-gzip') return createGunzip();
  if (encoding === 'deflate') return createInflate();
  if (encoding === 'br') return createBrotliDecompress();
  return 'unsupported';
}

interface UrlParts {
  origin: string;
  path: string;
  bareHost: string;
}
const partsOf = new WeakMap<URL, UrlParts>();

/** WHATWG URL getters build strings on every call; a probe of a cached URL reads them once. */
function urlParts(url: URL): UrlParts {
  let parts = partsOf.get(url);
  if (!parts) {
    const host = url.hostname;
    parts = {
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      bareHost: host.startsWith('[') ? host.slice(1, -1) : host,
    };
    partsOf.set(url, parts);
  }
  return parts;
}

export class HttpTransport implements ProbeTransport {
  private readonly origin: string;
  private readonly path: string;
  private readonly baseHeaders: Record<string, string>;
  private readonly attribution: string | null;

  constructor(private readonly config: HttpTransportConfig) {
    const { url, address } = config;
    const parts = urlParts(url);
    this.path = parts.path;
    const headers: Record<string, string> = {};
    if (config.headers) {
      for (const name of Object.keys(config.headers))
        headers[name.toLowerCase()] = config.headers[name] ?? '';
    }
    if (address && address !== parts.bareHost) {
      // undici derives TLS SNI from the host header, so the pinned connection still presents the URL's name.
      const pinned = pinnedOrigin(url, address);
      this.origin = pinned.origin;
      headers.host = pinned.host;
    } else {
      this.origin = parts.origin;
    }
    this.baseHeaders = headers;
    this.attribution = config.attributionHeader ? config.attributionHeader.toLowerCase() : null;
  }

  private headersFor(options: SendOptions, method: string | null): Record<string, string> {
    const headers: Record<string, string> =
      method === null
        ? { ...this.baseHeaders }
        : { ...this.baseHeaders, 'content-type': 'application/json', accept: ACCEPT };
    if (options.protocolVersionHeader) headers['mcp-protocol-version'] = options.protocolVersionHeader;
    if (options.methodHeader && method) headers['mcp-method'] = method;
    if (options.sessionId) headers['mcp-session-id'] = options.sessionId;
    return headers;
  }

  request(message: JsonRpcRequest, options: SendOptions): Promise<Exchange> {
    return this.exchange(
      'POST',
      JSON.stringify(message),
      this.headersFor(options, message.method),
      options,
      message.id,
      // Safe to send again on a fresh socket when a reused one closed before answering: everything but
      // initialize, which reaches a node at most once per probe.
      message.method !== 'initialize',
    );
  }

  notify(message: JsonRpcNotification, options: SendOptions): Promise<Exchange> {
    return this.exchange(
      'POST',
      JSON.stringify(message),
      this.headersFor(options, message.method),
      options,
      null,
      false,
    );
  }

  endSession(sessionId: string, options: SendOptions): Promise<Exchange> {
    return this.exchange(
      'DELETE',
      null,
      this.headersFor({ ...options, sessionId }, null),
      options,
      null,
      true,
    );
  }

  /** One HTTP exchange under one deadline. `expectedId` null means no JSON-RPC response is expected. */
  private exchange(
    method: 'POST' | 'DELETE',
    body: string | null,
    headers: Record<string, string>,
    options: SendOptions,
    expectedId: string | number | null,
    idempotent: boolean,
  ): Promise<Exchange> {
    return new Promise((resolve) => {
      const handler = new ExchangeHandler(expectedId, options, this.config, this.attribution, resolve);
      try {
        this.config.dispatcher.dispatch(
          {
            origin: this.origin,
            path: this.path,
            method,
            headers,
            body,
            idempotent,
            headersTimeout: options.timeoutMs + 1_000,
            bodyTimeout: options.timeoutMs + 1_000,
          },
          handler,
        );
      } catch (err) {
        handler.fail(err);
      }
    });
  }
}

class StopExchange extends Error {}

// Built once: an Error per stopped exchange costs a stack capture, thousands of times a minute.
const DEADLINE = new StopExchange('deadline');
const NOT_STARTED = new StopExchange('deadline passed before the request started');
const NOT_NEEDED = new StopExchange('response no longer needed');
const TAIL_TOO_LONG = new StopExchange('the stream went on after our answer');

function expireHandler(handler: ExchangeHandler): void {
  handler.expire();
}

function cutTail(handler: ExchangeHandler): void {
  handler.cutTail();
}

/**
 * Reads one response straight from undici's dispatch callbacks (no stream objects): counts bytes after
 * decompression, stops an SSE stream at our id, and settles exactly once: at the end, on error, or at the
 * deadline, whichever comes first.
 */
class ExchangeHandler implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  private settled = false;
  private readonly record: Exchange;
  private readonly started: number;
  private readonly timer: ReturnType<typeof setTimeout>;
  private mode: 'json' | 'sse' | 'other' | 'drain' = 'drain';
  private chunks: Buffer[] = [];
  private total = 0;
  private sse: SseReader | null = null;
  private text: TextDecoder | null = null;
  private wrongId: unknown = undefined;
  private decoder: Transform | null = null;
  /** The response arrived in full: nothing left to stop, and no Error worth building. */
  private ended = false;
  /** Settled from an SSE event while the stream is still open: the rest is read and dropped, briefly. */
  private tail: { bytes: number; timer: ReturnType<typeof setTimeout> } | null = null;

  constructor(
    private readonly expectedId: string | number | null,
    private readonly options: SendOptions,
    private readonly config: HttpTransportConfig,
    private readonly attribution: string | null,
    private readonly resolve: (record: Exchange) => void,
  ) {
    this.started = config.now();
    this.record = {
      outcome: 'network_error',
      httpStatus: null,
      contentType: null,
      message: null,
      sessionId: null,
      servedBy: null,
      address: config.address,
      elapsedMs: 0,
      delivered: false,
    };
    this.timer = setTimeout(expireHandler, options.timeoutMs, this);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // The project's client says which certificate the connection was verified with (null on plain HTTP).
    const expires = (controller as { certificateExpiresAt?: unknown }).certificateExpiresAt;
    if (typeof expires === 'number') this.record.certificateExpiresAt = expires;
    if (this.settled) controller.abort(NOT_STARTED);
    // undici calls this on a connected socket right before writing the request to it.
    else this.record.delivered = true;
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (this.settled) return;
    this.record.delivered = true;
    if (statusCode < 200) return;
    const r = this.record;
    r.httpStatus = statusCode;
    r.contentType = headerString(headers['content-type']);
    r.sessionId = headerString(headers['mcp-session-id']);
    if (this.attribution) r.servedBy = headerString(headers[this.attribution]);
    const auth = statusCode === 401 || statusCode === 403;
    if (auth) {
      const challenge = headers['www-authenticate'];
      r.challenge = Array.isArray(challenge) ? challenge.join(', ') : (challenge ?? null);
    }
    const redirectOrAuth = (statusCode >= 300 && statusCode < 400) || auth;
    if (this.expectedId === null || redirectOrAuth) return;
    const decoder = decoderFor(headerString(headers['content-encoding'])?.toLowerCase() ?? null);
    if (decoder === 'unsupported') {
      this.mode = 'other';
      return;
    }
    const type = (r.contentType ?? '').toLowerCase();
    if (type.includes('text/event-stream')) {
      this.mode = 'sse';
      this.sse = new SseReader();
      this.text = new TextDecoder();
    } else if (type.includes('json')) {
      this.mode = 'json';
    } else {
      this.mode = 'other';
    }
    if (decoder) {
      this.decoder = decoder;
      decoder.on('data', (chunk: Buffer) => this.consume(chunk));
      decoder.on('error', (err: Error) =>
        this.finish({ kind: 'invalid_json', detail: `content-encoding: ${err.message}` }),
      );
      decoder.on('end', () => this.complete());
    }
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) {
      if (this.tail) {
        this.tail.bytes += chunk.length;
        if (this.tail.bytes > NON_BODY_DUMP_LIMIT) this.cutTail();
      }
      return;
    }
    if (this.decoder) this.decoder.write(chunk);
    else this.consume(chunk);
  }

  onResponseEnd(): void {
    this.ended = true;
    if (this.tail) clearTimeout(this.tail.timer);
    this.tail = null;
    if (this.settled) return;
    if (this.decoder) this.decoder.end();
    else this.complete();
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    if (this.tail) clearTimeout(this.tail.timer);
    this.tail = null;
    this.fail(err);
  }

  fail(err: unknown): void {
    if (this.settled) return;
    const expires = (err as { certificateExpiresAt?: unknown } | null)?.certificateExpiresAt;
    if (typeof expires === 'number') this.record.certificateExpiresAt = expires;
    const mapped = outcomeOfError(err);
    this.settle(mapped.outcome, mapped.detail);
  }

  expire(): void {
    if (this.settled) return;
    this.settle('timeout', `no complete answer within ${this.options.timeoutMs} ms`);
    this.controller?.abort(DEADLINE);
  }

  /** The stream did not end soon after our answer: close it (and its connection). */
  cutTail(): void {
    if (this.tail) clearTimeout(this.tail.timer);
    this.tail = null;
    const c = this.controller;
    if (c && !c.aborted && !this.ended) c.abort(TAIL_TOO_LONG);
  }

  private consume(chunk: Buffer): void {
    if (this.settled) return;
    this.total += chunk.length;
    if (this.mode === 'drain') {
      // Bodies we do not read (redirects, auth, notification acks) are drained a little, then cut off.
      if (this.total > NON_BODY_DUMP_LIMIT) this.complete();
      return;
    }
    if (this.total > this.options.maxBodyBytes) {
      this.settle('body_too_large', `body exceeded ${this.options.maxBodyBytes} bytes`);
      this.stop();
      return;
    }
    if (this.mode === 'json') {
      this.chunks.push(chunk);
    } else if (this.mode === 'sse') {
      this.readEvents(chunk);
    } else if (chunk.length > 0) {
      // One non-empty chunk is enough to know the body is there and is not ours to parse.
      this.finish({ kind: 'other' });
    }
  }

  private readEvents(chunk: Buffer): void {
    if (!this.sse || !this.text) return;
    for (const data of this.sse.push(this.text.decode(chunk, { stream: true }))) {
      if (data.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(data);
      } catch (err) {
        this.finish({
          kind: 'invalid_json',
          detail: `SSE data: ${err instanceof Error ? err.message : String(err)}`,
        });
        return;
      }
      if (!isJsonRpcResponse(value)) continue;
      if (value.id === this.expectedId || (value.id === null && 'error' in value)) {
        this.finish({ kind: 'json', value }, 'read-tail');
        return;
      }
      this.wrongId ??= value;
    }
  }

  /** The body ended (or was cut off on purpose): settle from what was read. */
  private complete(): void {
    if (this.settled) return;
    if (this.mode === 'json') {
      this.finish(parseJsonBody(this.chunks, this.total));
    } else if (this.mode === 'sse') {
      this.finish(this.wrongId === undefined ? { kind: 'empty' } : { kind: 'json', value: this.wrongId });
    } else if (this.mode === 'other') {
      this.finish({ kind: 'empty' });
    } else {
      const status = this.record.httpStatus ?? 0;
      if (this.expectedId === null) {
        const outcome: Outcome =
          status < 300
            ? 'result'
            : status < 400
              ? 'redirect_refused'
              : status >= 500
                ? 'http_5xx'
                : 'http_4xx';
        this.settle(outcome);
        this.stop();
      } else {
        this.finish({ kind: 'other' });
      }
    }
  }

  /**
   * Settles from a body reading and stops the response if it is still flowing. With 'read-tail' (our answer
   * came as an SSE event, and servers end the stream right after it) the rest is read and dropped for up to
   * SSE_TAIL_MS and 64 KiB, so the keep-alive connection survives instead of being torn down and redialled.
   */
  private finish(reading: BodyReading, then: 'stop' | 'read-tail' = 'stop'): void {
    if (this.settled) return;
    const settled = settleOutcome(this.record.httpStatus ?? 0, reading, this.expectedId ?? '');
    this.record.message = settled.message;
    this.settle(settled.outcome, settled.detail);
    if (then === 'read-tail' && !this.decoder && !this.ended && this.controller && !this.controller.aborted) {
      this.tail = { bytes: 0, timer: setTimeout(cutTail, SSE_TAIL_MS, this) };
      return;
    }
    this.stop();
  }

  private stop(): void {
    this.decoder?.destroy();
    const c = this.controller;
    if (c && !c.aborted && !this.ended) c.abort(NOT_NEEDED);
  }

  private settle(outcome: Outcome, detail?: string): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.record.outcome = outcome;
    this.record.bytes = this.total;
    if (detail) this.record.detail = detail;
    this.record.elapsedMs = Math.max(0, this.config.now() - this.started);
    this.resolve(this.record);
  }
}

function parseJsonBody(chunks: Buffer[], total: number): BodyReading {
  if (total === 0) return { kind: 'empty' };
  const first = chunks[0];
  const text =
    chunks.length === 1 && first ? first.toString('utf8') : Buffer.concat(chunks, total).toString('utf8');
  if (text.trim() === '') return { kind: 'empty' };
  try {
    return { kind: 'json', value: JSON.parse(text) as unknown };
  } catch (err) {
    return { kind: 'invalid_json', detail: err instanceof Error ? err.message : String(err) };
  }
}
