// One HTTP attempt to a webhook endpoint, through the egress guard. A redirect is a failure and is not followed;
// the whole attempt (connect, headers, body) has one deadline.
import { request, type Dispatcher } from 'undici';

export const ATTEMPT_OUTCOMES = [
  'ok',
  'gone',
  'http_3xx',
  'http_4xx',
  'http_5xx',
  'timeout',
  'refused',
  'reset',
  'egress_refused',
  'network_error',
  'config_error',
] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

export interface AttemptResult {
  outcome: AttemptOutcome;
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
}

export interface SendRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

export type SendFn = (req: SendRequest) => Promise<AttemptResult>;

const MAX_RESPONSE_BYTES = 64 * 1024;

function classifyStatus(status: number): AttemptOutcome {
  if (status >= 200 && status < 300) return 'ok';
  if (status === 410) return 'gone';
  if (status >= 300 && status < 400) return 'http_3xx';
  if (status >= 500) return 'http_5xx';
  return 'http_4xx';
}

function classifyError(err: unknown): { outcome: AttemptOutcome; error: string } {
  const e = err as {
    code?: string;
    name?: string;
    message?: string;
    cause?: { code?: string; message?: string };
  };
  const code = e.code ?? e.cause?.code ?? '';
  const message = e.message ?? String(err);
  if (code === 'ERAWATCH_EGRESS_REFUSED' || e.name === 'EgressRefusedError')
    return { outcome: 'egress_refused', error: message };
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || /Timeout/.test(code)) {
    return { outcome: 'timeout', error: 'no complete answer within the attempt deadline' };
  }
  if (code === 'ECONNREFUSED') return { outcome: 'refused', error: 'connection refused' };
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE')
    return { outcome: 'reset', error: 'connection reset or closed' };
  return { outcome: 'network_error', error: code ? `${code}: ${message}` : message };
}

/** A SendFn over undici with the given dispatcher (the egress-guarded agent in production). */
export function createSender(dispatcher: Dispatcher, clock: () => number = Date.now): SendFn {
  return async ({ url, headers, body, timeoutMs }) => {
    const started = clock();
    try {
      const res = await request(url, {
        method: 'POST',
        dispatcher,
        headers: { 'content-type': 'application/json', 'user-agent': 'erawatch-webhooks/1', ...headers },
        body,
        signal: AbortSignal.timeout(timeoutMs),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      let read = 0;
      for await (const chunk of res.body) {
        read += (chunk as Buffer).length;
        if (read > MAX_RESPONSE_BYTES) {
          res.body.destroy();
          break;
        }
      }
      const outcome = classifyStatus(res.statusCode);
      return {
        outcome,
        httpStatus: res.statusCode,
        error: outcome === 'ok' ? null : `receiver answered HTTP ${res.statusCode}`,
        durationMs: clock() - started,
      };
    } catch (err) {
      return { ...classifyError(err), httpStatus: null, durationMs: clock() - started };
    }
  };
}
