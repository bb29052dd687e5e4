// The poll role's status: what it holds and has done, and the lag from due time to probe start over a window
// of recent probes. Plain counters; the role's parts add to them.
export interface LagSummary {
  count: number;
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
}

export interface PollerStatus {
  state: 'waiting' | 'polling' | 'stopping' | 'stopped';
  holderId: string;
  region: string;
  /** Units whose cycles run here now (each under a lease in the store). */
  unitsHeld: number;
  /** Cycles whose results were refused because another worker took their unit over. */
  cyclesFenced: number;
  balancers: number;
  /** Stdio targets scheduled (from the config file). */
  stdioTargets: number;
  cyclesCompleted: number;
  cyclesFailed: number;
  cyclesAbandoned: number;
  cyclesRunning: number;
  probes: number;
  lastCycleAt: number | null;
  lastCycleAgeMs: number | null;
  lastError: string | null;
  /** Lag between a cycle's due time and each probe's start, over the last LAG_WINDOW probes. */
  lag: LagSummary;
}

export const LAG_WINDOW = 20_000;

export function summarizeLag(lags: Float64Array, count: number): LagSummary {
  const n = Math.min(count, lags.length);
  if (n === 0) return { count, p50Ms: null, p99Ms: null, maxMs: null };
  const sorted = Float64Array.from(lags.subarray(0, n)).sort();
  const at = (q: number) => sorted[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))] ?? null;
  return { count, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: sorted[n - 1] ?? null };
}

/** The counters a poll role keeps, and the lag window. */
export class PollerCounters {
  completed = 0;
  failed = 0;
  abandoned = 0;
  fenced = 0;
  probes = 0;
  lastCycleAt: number | null = null;
  lastError: string | null = null;
  private readonly lags = new Float64Array(LAG_WINDOW);
  private lagCount = 0;

  recordLag(lagMs: number): void {
    this.lags[this.lagCount % LAG_WINDOW] = lagMs;
    this.lagCount += 1;
  }

  lag(): LagSummary {
    return summarizeLag(this.lags, this.lagCount);
  }
}
