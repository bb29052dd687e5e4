// Token buckets per caller, in memory: one process serves the API, so no shared store is needed.
import type { Settings } from '@/lib/settings';

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
    const prev = this.buckets.get(key);
    const tokens = this.level(key, now);
    if (!prev && this.buckets.size >= this.maxKeys) this.buckets.clear();
    if (tokens < 1) {
      this.buckets.set(key, { tokens, at: now });
      return { allowed: false, retryAfterS: this.wait(tokens) };
    }
    this.buckets.set(key, { tokens: tokens - 1, at: now });
    return { allowed: true, retryAfterS: 0 };
  }

  /** Whether `take` would allow a request now, without spending anything. */
  peek(key: string, now: number): RateLimitResult {
    if (this.perMinute <= 0) return { allowed: true, retryAfterS: 0 };
    const tokens = this.level(key, now);
    return tokens < 1
      ? { allowed: false, retryAfterS: this.wait(tokens) }
      : { allowed: true, retryAfterS: 0 };
  }

  private level(key: string, now: number): number {
    const prev = this.buckets.get(key);
    return prev
      ? Math.min(this.burst, prev.tokens + (now - prev.at) * (this.perMinute / 60_000))
      : this.burst;
  }

  private wait(tokens: number): number {
    return Math.max(1, Math.ceil((1 - tokens) / (this.perMinute / 60_000) / 1000));
  }
}

const GLOBAL_KEY = Symbol.for('erawatch.rate-limiters');
type Limiters = { requests: RateLimiter; failedAuth: RateLimiter; failedAuthPerPrefix: RateLimiter };
type GlobalWithLimiters = typeof globalThis & { [GLOBAL_KEY]?: Limiters };

/** A token prefix may fail this many times more than one client: one client alone never locks it. */
export const PREFIX_FAILURE_FACTOR = 10;

/**
 * Per-credential requests (ERAWATCH_RATE_LIMIT per minute, 0 = off) and failed credentials per client address
 * (ERAWATCH_AUTH_FAILURE_LIMIT per minute) and per token prefix. Each bucket holds one minute's budget, so the
 * stated number of requests may arrive at once; after that they are allowed at the sustained rate.
 */
export function getRateLimiters(settings: Pick<Settings, 'rateLimit' | 'authFailureLimit'>): Limiters {
  const g = globalThis as GlobalWithLimiters;
  if (!g[GLOBAL_KEY]) {
    const perMinute = settings.rateLimit;
    const failed = settings.authFailureLimit;
    const perPrefix = failed * PREFIX_FAILURE_FACTOR;
    g[GLOBAL_KEY] = {
      requests: new RateLimiter(perMinute, Math.max(1, perMinute)),
      failedAuth: new RateLimiter(failed, Math.max(1, failed)),
      failedAuthPerPrefix: new RateLimiter(perPrefix, Math.max(1, perPrefix)),
    };
  }
  return g[GLOBAL_KEY];
}

/** Tests and config reloads start from fresh buckets. */
export function resetRateLimiters(): void {
  delete (globalThis as GlobalWithLimiters)[GLOBAL_KEY];
}
