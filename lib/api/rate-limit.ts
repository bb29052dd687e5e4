// Token buckets per caller, in memory: one process serves the API, so no shared store is needed.

export interface RateLimitResult {
  allowed: boolean;
  /** Seconds until one request is allowed again (only when refused). */
  retryAfterS: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    /** Sustained requests per minute; 0 disables the limiter. */
    readonly perMinute: number,
    readonly burst: number,
    private readonly maxKeys = 10_000,
  ) {}

  take(key: string, now: number): RateLimitResult {
    if (this.perMinute <= 0) return { allowed: true, retryAfterS: 0 };
    const rate = this.perMinute / 60_000;
    const prev = this.buckets.get(key);
    const tokens = prev ? Math.min(this.burst, prev.tokens + (now - prev.at) * rate) : this.burst;
    if (!prev && this.buckets.size >= this.maxKeys) this.buckets.clear();
    if (tokens < 1) {
      this.buckets.set(key, { tokens, at: now });
      return { allowed: false, retryAfterS: Math.max(1, Math.ceil((1 - tokens) / rate / 1000)) };
    }
    this.buckets.set(key, { tokens: tokens - 1, at: now });
    return { allowed: true, retryAfterS: 0 };
  }
}

function intFromEnv(value: string | undefined, fallback: number): number {
  const n = value === undefined ? NaN : Number(value);
  return Number.isInteger(n) && n >= 0 ? n : fallback;
}

const GLOBAL_KEY = Symbol.for('erawatch.rate-limiters');
type Limiters = { requests: RateLimiter; failedAuth: RateLimiter };
type GlobalWithLimiters = typeof globalThis & { [GLOBAL_KEY]?: Limiters };

/** Per-credential request limit (ERAWATCH_RATE_LIMIT per minute, 0 = off) and a limit on failed logins/tokens. */
export function getRateLimiters(env: Record<string, string | undefined> = process.env): Limiters {
  const g = globalThis as GlobalWithLimiters;
  if (!g[GLOBAL_KEY]) {
    const perMinute = intFromEnv(env.ERAWATCH_RATE_LIMIT, 6_000);
    const failed = intFromEnv(env.ERAWATCH_AUTH_FAILURE_LIMIT, 60);
    g[GLOBAL_KEY] = {
      requests: new RateLimiter(perMinute, Math.max(1, Math.ceil(perMinute / 10))),
      failedAuth: new RateLimiter(failed, Math.max(1, Math.ceil(failed / 3))),
    };
  }
  return g[GLOBAL_KEY];
}

/** Tests and config reloads start from fresh buckets. */
export function resetRateLimiters(): void {
  delete (globalThis as GlobalWithLimiters)[GLOBAL_KEY];
}
