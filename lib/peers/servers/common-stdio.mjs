// Shared pieces of the stdio peers: a transport wrapper that records what the server received (JSON lines
// in a file, so a test can read it after the process is gone) and holds messages back to model a slow
// start or a slow handshake. Works with both SDK generations, which share the Transport shape.
import { appendFileSync } from 'node:fs';

/**
 * @param {{start(): Promise<void>, send(m: unknown, o?: unknown): Promise<void>, close(): Promise<void>,
 *   onmessage?: (m: unknown, e?: unknown) => void, onclose?: () => void, onerror?: (e: Error) => void}} inner
 * @param {{recordPath?: string, holdFirstMs?: number, holdMethods?: Record<string, number>,
 *   holdUntilRequests?: number}} opts
 * holdUntilRequests: everything is held until that many requests arrived, then passed on in order; a
 * client that retries only after a deadline thus sees the first answers late on any machine, no timer.
 */
export function wrapTransport(inner, opts) {
  let firstAt = null;
  let requests = 0;
  let held = opts.holdUntilRequests ? [] : null;
  const outer = {
    onmessage: undefined,
    onclose: undefined,
    onerror: undefined,
    sessionId: undefined,
    async start() {
      inner.onmessage = (message, extra) => deliver(message, extra);
      inner.onclose = () => outer.onclose?.();
      inner.onerror = (error) => outer.onerror?.(error);
      await inner.start();
    },
    send: (message, options) => inner.send(message, options),
    close: () => inner.close(),
    setProtocolVersion: (version) => inner.setProtocolVersion?.(version),
  };
  function deliver(message, extra) {
    const method = typeof message?.method === 'string' ? message.method : null;
    if (opts.recordPath)
      appendFileSync(
        opts.recordPath,
        JSON.stringify({ method, id: message?.id ?? null, pid: process.pid }) + '\n',
      );
    if (held !== null) {
      if (message?.id !== undefined && message?.id !== null) requests += 1;
      held.push([message, extra]);
      if (requests < opts.holdUntilRequests) return;
      const release = held;
      held = null;
      for (const [m, e] of release) outer.onmessage?.(m, e);
      return;
    }
    const now = Date.now();
    if (firstAt === null) firstAt = now;
    // A slow start holds everything that arrives before the first request's deadline, in order.
    const firstWait = opts.holdFirstMs ? Math.max(0, firstAt + opts.holdFirstMs - now) : 0;
    const methodWait = method && opts.holdMethods?.[method] ? opts.holdMethods[method] : 0;
    const wait = Math.max(firstWait, methodWait);
    if (wait > 0) setTimeout(() => outer.onmessage?.(message, extra), wait);
    else outer.onmessage?.(message, extra);
  }
  return outer;
}

/** Logs one line to stderr, the stdio channel servers use for logging. */
export function logLine(text) {
  process.stderr.write(`[${new Date().toISOString()}] ${text}\n`);
}

/** `a,b,c` → ['a','b','c'], empty entries dropped. */
export function splitList(value) {
  return String(value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
