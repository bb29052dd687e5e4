// Streamable HTTP transport for the probe: one POST per JSON-RPC message over a shared undici dispatcher,
// one overall deadline per exchange, a byte cap after decompression, no redirects, SSE read until our id.
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable, Transform } from 'node:stream';
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

class BodyTooLarge extends Error {}

/** Maps a socket, DNS, TLS or guard error to an outcome; anything unknown is `network_error`. */
export function outcomeOfError(err: unknown): { outcome: Outcome; detail: string } {
  const e = err as { code?: unknown; message?: unknown; cause?: { code?: unknown } } | null;
  const code = typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : '';
  const detail = `${code ? `${code}: ` : ''}${typeof e?.message === 'string' ? e.message : String(err)}`;
  const table: Array<[RegExp, Outcome]> = [
    [/^ERAWATCH_EGRESS_REFUSED$/, 'egress_refused'],
    [/^ECONNREFUSED$/, 'refused'],
    [/^(ECONNRESET|EPIPE)$/, 'reset'],
    [/^(UND_ERR_SOCKET|UND_ERR_RES_CONTENT_LENGTH_MISMATCH|ECONNABORTED|UND_ERR_CLOSED)$/, 'closed'],
    [/^(ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_FAIL|ENODATA)$/, 'dns_failed'],
    [/^(UND_ERR_CONNECT_TIMEOUT|UND_ERR_HEADERS_TIMEOUT|UND_ERR_BODY_TIMEOUT|ETIMEDOUT)$/, 'timeout'],
    [/^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_OSSL)/, 'tls_error'],
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

export class HttpTransport implements ProbeTransport {
  private readonly origin: string;
  private readonly path: string;
  private readonly baseHeaders: Record<string, string>;
  private readonly attribution: string | null;

  constructor(private readonly config: HttpTransportConfig) {
    const { url, address } = config;
    this.path = `${url.pathname}${url.search}`;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(config.headers ?? {})) headers[name.toLowerCase()] = value;
    if (address && address !== url.hostname.replace(/^\[|\]$/g, '')) {
      // undici derives TLS SNI from the host header, so the pinned connection still presents the URL's name.
      const pinned = pinnedOrigin(url, address);
      this.origin = pinned.origin;
      headers.host = pinned.host;
    } else {
      this.origin = url.origin;
    }
    this.baseHeaders = headers;
    this.attribution = config.attributionHeader ? config.attributionHeader.toLowerCase() : null;
  }

  private headersFor(options: SendOptions, method: string | null): Record<string, string> {
    const headers: Record<string, string> = { ...this.baseHeaders };
    if (method !== null) {
      headers['content-type'] = 'application/json';
      headers.accept = ACCEPT;
    }
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
    );
  }

  notify(message: JsonRpcNotification, options: SendOptions): Promise<Exchange> {
    return this.exchange(
      'POST',
      JSON.stringify(message),
      this.headersFor(options, message.method),
      options,
      null,
    );
  }

  endSession(sessionId: string, options: SendOptions): Promise<Exchange> {
    return this.exchange('DELETE', null, this.headersFor({ ...options, sessionId }, null), options, null);
  }

  /** One HTTP exchange under one deadline. `expectedId` null means no JSON-RPC response is expected. */
  private async exchange(
    method: 'POST' | 'DELETE',
    body: string | null,
    headers: Record<string, string>,
    options: SendOptions,
    expectedId: string | number | null,
  ): Promise<Exchange> {
    const { now } = this.config;
    const started = now();
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, options.timeoutMs);
    const record: Exchange = {
      outcome: 'network_error',
      httpStatus: null,
      contentType: null,
      message: null,
      sessionId: null,
      servedBy: null,
      address: this.config.address,
      elapsedMs: 0,
    };
    try {
      const res = await this.config.dispatcher.request({
        origin: this.origin,
        path: this.path,
        method,
        headers,
        body,
        signal: controller.signal,
        headersTimeout: options.timeoutMs + 1_000,
        bodyTimeout: options.timeoutMs + 1_000,
      });
      record.httpStatus = res.statusCode;
      record.contentType = headerString(res.headers['content-type']);
      record.sessionId = headerString(res.headers['mcp-session-id']);
      if (this.attribution) record.servedBy = headerString(res.headers[this.attribution]);
      if (expectedId === null) {
        await res.body.dump({ limit: NON_BODY_DUMP_LIMIT }).catch(() => undefined);
        record.outcome = res.statusCode < 300 ? 'result' : res.statusCode >= 500 ? 'http_5xx' : 'http_4xx';
        if (res.statusCode >= 300 && res.statusCode < 400) record.outcome = 'redirect_refused';
      } else {
        const reading = await this.readBody(res, expectedId, options.maxBodyBytes);
        const settled = settleOutcome(res.statusCode, reading, expectedId);
        record.outcome = settled.outcome;
        record.message = settled.message;
        if (settled.detail) record.detail = settled.detail;
      }
    } catch (err) {
      if (timedOut) {
        record.outcome = 'timeout';
        record.detail = `no complete answer within ${options.timeoutMs} ms`;
      } else if (err instanceof BodyTooLarge) {
        record.outcome = 'body_too_large';
        record.detail = `body exceeded ${options.maxBodyBytes} bytes`;
      } else {
        const mapped = outcomeOfError(err);
        record.outcome = mapped.outcome;
        record.detail = mapped.detail;
      }
    } finally {
      clearTimeout(timer);
      record.elapsedMs = Math.max(0, now() - started);
    }
    return record;
  }

  private async readBody(
    res: Dispatcher.ResponseData,
    expectedId: string | number,
    maxBytes: number,
  ): Promise<BodyReading> {
    const status = res.statusCode;
    if ((status >= 300 && status < 400) || status === 401 || status === 403) {
      await res.body.dump({ limit: NON_BODY_DUMP_LIMIT }).catch(() => undefined);
      return { kind: 'other' };
    }
    const type = (headerString(res.headers['content-type']) ?? '').toLowerCase();
    const decoder = decoderFor(headerString(res.headers['content-encoding'])?.toLowerCase() ?? null);
    if (decoder === 'unsupported') {
      res.body.destroy();
      return { kind: 'other' };
    }
    const source: Readable = decoder ? (res.body.pipe(decoder) as Transform) : res.body;
    if (decoder) res.body.on('error', (err) => decoder.destroy(err));
    try {
      if (type.includes('text/event-stream')) return await readSse(source, expectedId, maxBytes);
      if (type.includes('json')) return await readJson(source, maxBytes);
      return await readOther(source, maxBytes);
    } finally {
      if (!res.body.destroyed && !res.body.readableEnded) res.body.destroy();
      if (decoder && !decoder.destroyed) decoder.destroy();
    }
  }
}

async function readJson(source: Readable, maxBytes: number): Promise<BodyReading> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of source as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  if (total === 0) return { kind: 'empty' };
  const text =
    chunks.length === 1 && chunks[0]
      ? chunks[0].toString('utf8')
      : Buffer.concat(chunks, total).toString('utf8');
  if (text.trim() === '') return { kind: 'empty' };
  try {
    return { kind: 'json', value: JSON.parse(text) as unknown };
  } catch (err) {
    return { kind: 'invalid_json', detail: err instanceof Error ? err.message : String(err) };
  }
}

/** Reads events until the response with our id (or a null-id error); other responses are kept as wrong-id. */
async function readSse(
  source: Readable,
  expectedId: string | number,
  maxBytes: number,
): Promise<BodyReading> {
  const reader = new SseReader();
  const decoder = new TextDecoder();
  let total = 0;
  let other: unknown = undefined;
  for await (const chunk of source as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) throw new BodyTooLarge();
    for (const data of reader.push(decoder.decode(chunk, { stream: true }))) {
      if (data.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(data);
      } catch (err) {
        return {
          kind: 'invalid_json',
          detail: `SSE data: ${err instanceof Error ? err.message : String(err)}`,
        };
      }
      if (!isJsonRpcResponse(value)) continue;
      if (value.id === expectedId || (value.id === null && 'error' in value)) return { kind: 'json', value };
      other ??= value;
    }
  }
  return other === undefined ? { kind: 'empty' } : { kind: 'json', value: other };
}

async function readOther(source: Readable, maxBytes: number): Promise<BodyReading> {
  for await (const chunk of source as AsyncIterable<Buffer>) {
    if (chunk.length > maxBytes) throw new BodyTooLarge();
    // One non-empty chunk is enough to know the body is there and is not ours to parse.
    if (chunk.length > 0) return { kind: 'other' };
  }
  return { kind: 'empty' };
}
