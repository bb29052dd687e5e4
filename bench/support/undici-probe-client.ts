// The benchmark's reference HTTP client for the probe: undici's own Pool, one per origin, pipelining 1,
// through the same guarded connector as every other dispatcher (lib/net/egress.ts), driven directly (no
// Agent in between). `--http-client undici` in `bench probe` and `bench poller` measures the probe over it
// against the project's client (lib/probe/h1-agent.ts); docs/probe.md has the figures and the decision.
import tls from 'node:tls';
import { Dispatcher, Pool } from 'undici';
import { createEgressConnector, type EgressAgentOptions, type EgressPolicy } from '@/lib/net/egress';

export class UndiciProbeClient extends Dispatcher {
  private readonly pools = new Map<string, Pool>();
  private readonly connector: ReturnType<typeof createEgressConnector>;
  private readonly counters = { handshakes: 0, resumed: 0 };

  /**
   * With `ca`: one SecureContext for it, built once, as the project's client has (undici would otherwise
   * build one per connection from the `ca` option); undici's connector keeps its own TLS sessions.
   */
  constructor(
    policy: EgressPolicy,
    private readonly options: EgressAgentOptions & { keepAliveTimeoutMs?: number; ca?: string } = {},
  ) {
    super();
    const secureContext = options.ca ? tls.createSecureContext({ ca: options.ca }) : undefined;
    const inner = createEgressConnector(policy, {
      ...options,
      ...(secureContext ? { tls: { ...options.tls, secureContext } } : {}),
    });
    this.connector = (opts, callback) =>
      inner(opts, (err, socket) => {
        if (!err && socket instanceof tls.TLSSocket) {
          this.counters.handshakes += 1;
          if (socket.isSessionReused()) this.counters.resumed += 1;
        }
        (callback as (e: Error | null, s: typeof socket) => void)(err, socket);
      });
  }

  /** TLS connections opened, and how many resumed a session. */
  tlsCounters(): { handshakes: number; resumed: number } {
    return { ...this.counters };
  }

  private poolFor(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, {
        connect: this.connector,
        pipelining: 1,
        keepAliveTimeout: this.options.keepAliveTimeoutMs ?? 30_000,
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const origin = typeof opts.origin === 'string' ? opts.origin : (opts.origin?.origin ?? '');
    return this.poolFor(origin).dispatch(opts, handler);
  }

  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    const done = Promise.all([...this.pools.values()].map((p) => p.close())).then(() => undefined);
    this.pools.clear();
    if (callback) {
      void done.then(callback);
      return;
    }
    return done;
  }

  override destroy(): Promise<void>;
  override destroy(err: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(err: Error | null, callback: () => void): void;
  override destroy(a?: Error | null | (() => void), b?: () => void): Promise<void> | void {
    const err = a instanceof Error ? a : null;
    const done = Promise.all([...this.pools.values()].map((p) => p.destroy(err))).then(() => undefined);
    this.pools.clear();
    const callback = typeof a === 'function' ? a : b;
    if (callback) {
      void done.then(callback);
      return;
    }
    return done;
  }
}

export type HttpClientName = 'h1' | 'undici';

export function parseHttpClient(value: string): HttpClientName {
  if (value !== 'h1' && value !== 'undici')
    throw new Error(`--http-client must be h1 or undici, got '${value}'`);
  return value;
}
