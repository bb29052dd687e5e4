// The reverse-DNS name of a DNS node's address, bounded in time and cached: each address is looked up at most
// once per TTL (a failure or an answer with no name too, for its own shorter TTL), the cache holds at most
// `maxEntries` addresses (the oldest go first), and a lookup that takes longer than `timeoutMs` counts as no
// name. The lookup itself is a parameter: the system's (default-probe.ts) in production, any function in tests.

/** The name of an address, or null when it has none (or the lookup failed or took too long). */
export type ReverseFn = (address: string) => Promise<string | null>;

export interface ReverseCacheOptions {
  /** One lookup: the name, or null / a throw when there is none. */
  lookup: (address: string) => Promise<string | null>;
  /** The longest a lookup is waited for (default 2 s). */
  timeoutMs?: number;
  /** How long a name is kept (default 1 h). */
  ttlMs?: number;
  /** How long a failure, a timeout or no name is kept (default 5 min). */
  failureTtlMs?: number;
  /** The most addresses kept (default 10,000). */
  maxEntries?: number;
  now?: () => number;
}

interface Entry {
  name: string | null;
  expiresAt: number;
}

function withTimeout(work: Promise<string | null>, timeoutMs: number): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), timeoutMs);
    timer.unref();
  });
  return Promise.race([work.catch(() => null), expired]).finally(() => clearTimeout(timer));
}

export function createReverseNames(opts: ReverseCacheOptions): ReverseFn {
  const timeoutMs = opts.timeoutMs ?? 2_000;
  const ttlMs = opts.ttlMs ?? 3_600_000;
  const failureTtlMs = opts.failureTtlMs ?? 300_000;
  const maxEntries = Math.max(1, opts.maxEntries ?? 10_000);
  const now = opts.now ?? Date.now;
  const cache = new Map<string, Entry>();
  const pending = new Map<string, Promise<string | null>>();
  const remember = (address: string, name: string | null) => {
    cache.delete(address);
    while (cache.size >= maxEntries) {
      const oldest = cache.keys().next().value;
      if (oldest === undefined) break;
      cache.delete(oldest);
    }
    cache.set(address, { name, expiresAt: now() + (name === null ? failureTtlMs : ttlMs) });
  };
  return (address) => {
    const hit = cache.get(address);
    if (hit && hit.expiresAt > now()) return Promise.resolve(hit.name);
    const inFlight = pending.get(address);
    if (inFlight) return inFlight;
    const asked = withTimeout(
      Promise.resolve().then(() => opts.lookup(address)),
      timeoutMs,
    ).then((raw) => {
      // A name that is the address itself is no name.
      const name = raw && raw !== address ? raw : null;
      remember(address, name);
      pending.delete(address);
      return name;
    });
    pending.set(address, asked);
    return asked;
  };
}
