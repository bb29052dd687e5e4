// Shared by the test-support modules and the benchmarks: a free loopback port, and a bounded poll that waits for an answer
// (a store row, a query result, a counter) instead of sleeping for a guessed time.
import net from 'node:net';

/** A port the OS reports free on `host` right now; a caller that loses a race to bind it retries. */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Thrown from a `pollUntil` check to stop waiting at once (e.g. the process being waited on exited). */
export class PollAborted extends Error {}

export interface PollOptions {
  /** Pause between two checks (default 100 ms). */
  everyMs?: number;
}

/**
 * Asks `check` until it returns a truthy value, for at most `ms`. A check that throws is asked again (a
 * service still starting refuses connections), except with `PollAborted`. On time-out the error names
 * `what` and the last answer or error seen.
 */
export async function pollUntil<T>(
  what: string,
  ms: number,
  check: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  options: PollOptions = {},
): Promise<T> {
  const everyMs = options.everyMs ?? 100;
  const deadline = Date.now() + ms;
  let last: unknown = null;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
      last = value;
    } catch (err) {
      if (err instanceof PollAborted) throw err;
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${ms} ms waiting for ${what} (last: ${String(last)})`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
