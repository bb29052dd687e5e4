// The arithmetic of the multi-worker poller benchmark, pure so it can be tested: CPU from /proc/<pid>/stat,
// lag from the fleet's probe start times and the poller's phase slots, double probes, take-over time.

/** utime+stime (and, with `children`, cutime+cstime) in seconds from the text of /proc/<pid>/stat. */
export function procStatCpuSeconds(statText: string, ticksPerSecond: number, children = false): number {
  // The command name (field 2) may hold spaces and parentheses: the fields after its last ')' are fixed.
  const close = statText.lastIndexOf(')');
  if (close < 0) throw new Error('not a /proc/<pid>/stat line');
  const rest = statText
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  // rest[0] is field 3 (state), so field n is rest[n - 3]: utime 14, stime 15, cutime 16, cstime 17.
  const field = (n: number) => {
    const v = Number(rest[n - 3]);
    if (!Number.isFinite(v)) throw new Error(`/proc/<pid>/stat field ${n} is not a number`);
    return v;
  };
  const ticks = field(14) + field(15) + (children ? field(16) + field(17) : 0);
  return ticks / ticksPerSecond;
}

/** The parent PID (field 4) from the text of /proc/<pid>/stat. */
export function procStatParent(statText: string): number {
  const rest = statText.slice(statText.lastIndexOf(')') + 2).split(' ');
  return Number(rest[1]);
}

/** The sorted-array quantile the other benchmarks use (nearest rank). */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}

/**
 * Lag of each probe that started in [fromMs, toMs) behind its cycle's due time. Cycles fall due on their
 * balancer's phase slot (epoch-aligned: k × interval + phase), so the lag is the start time past the slot.
 */
export function probeLags(
  times: Readonly<Record<string, readonly number[]>>,
  phaseOfNode: (node: number) => number | undefined,
  intervalMs: number,
  fromMs: number,
  toMs: number,
): Float64Array {
  const lags: number[] = [];
  for (const [node, at] of Object.entries(times)) {
    const phase = phaseOfNode(Number(node));
    if (phase === undefined) continue;
    for (const t of at) {
      if (t < fromMs || t >= toMs) continue;
      lags.push((((t - phase) % intervalMs) + intervalMs) % intervalMs);
    }
  }
  return Float64Array.from(lags).sort();
}

export interface DoubleProbe {
  node: number;
  earlier: number;
  later: number;
}

/**
 * Pairs of consecutive probes of one node less than `minGapMs` apart whose later probe started in
 * [fromMs, toMs). The poller never schedules a node's next cycle sooner than half an interval after the
 * last one started, so anything closer is one node probed twice within one interval.
 */
export function findDoubleProbes(
  times: Readonly<Record<string, readonly number[]>>,
  minGapMs: number,
  fromMs: number,
  toMs: number,
): DoubleProbe[] {
  const doubles: DoubleProbe[] = [];
  for (const [node, at] of Object.entries(times)) {
    const sorted = [...at].sort((a, b) => a - b);
    for (let i = 1; i < sorted.length; i++) {
      const earlier = sorted[i - 1] ?? 0;
      const later = sorted[i] ?? 0;
      if (later >= fromMs && later < toMs && later - earlier < minGapMs)
        doubles.push({ node: Number(node), earlier, later });
    }
  }
  return doubles;
}

/**
 * Seconds from `killedAt` until every unit (a list of its nodes) had a probe start after it: the slowest
 * unit's first probe. Null when some unit has none yet.
 */
export function takeoverSeconds(
  times: Readonly<Record<string, readonly number[]>>,
  units: ReadonlyArray<readonly number[]>,
  killedAt: number,
): number | null {
  let slowest = 0;
  for (const nodes of units) {
    let first = Infinity;
    for (const n of nodes) for (const t of times[String(n)] ?? []) if (t > killedAt && t < first) first = t;
    if (first === Infinity) return null;
    slowest = Math.max(slowest, first - killedAt);
  }
  return slowest / 1000;
}

/** Growth over a window scaled to one hour (bytes). */
export function perHour(bytesBefore: number, bytesAfter: number, windowMs: number): number {
  if (windowMs <= 0) throw new Error('the window must be longer than 0 ms');
  return ((bytesAfter - bytesBefore) / windowMs) * 3_600_000;
}

/**
 * Steady growth of an hour at the offered rate: bytes per probe measured in the window times the probes an hour
 * of the fleet asks for. Workers that fall behind probe less per hour than the fleet needs, so scaling by time
 * alone would understate what a machine that keeps up writes.
 */
export function perQuietHourAtOffered(
  bytesGrown: number,
  probesInWindow: number,
  offeredPerSecond: number,
): number {
  if (probesInWindow <= 0) throw new Error('no probes were measured');
  return (Math.max(0, bytesGrown) / probesInWindow) * offeredPerSecond * 3_600;
}

export interface Weight {
  total: number;
  /** Bytes per table (PostgreSQL: with its indexes and TOAST; SQLite: per table and per index). */
  tables: Record<string, number>;
  /** Rows per table (exact counts; an index counts its table's rows), or null when not counted. */
  rows: Record<string, number> | null;
}

/** Per-table growth between two weighings (tables that did not change are left out). */
export function growth(
  before: Record<string, number>,
  after: Record<string, number>,
): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after)
      .map(([name, bytes]) => [name, bytes - (before[name] ?? 0)] as const)
      .filter(([, d]) => d !== 0),
  );
}

/**
 * Splits a window's table growth into what accumulates and what is rewritten in place: only tables that
 * gained rows (history, events, rollups) accumulate. A table whose row count did not grow (states, leases,
 * series, balancer snapshots) is bounded in a quiet fleet however much a short window shows it growing: on
 * PostgreSQL every update writes a new row version that autovacuum later frees for reuse; on SQLite a row
 * rewritten at another length (a snapshot whose catalogs were listed this cycle and carried the next) moves
 * its overflow chain across page boundaries, so the table's page count swings by pages from cycle to cycle.
 * Without row counts every table's growth accumulates.
 */
export function splitGrowth(
  before: Weight,
  after: Weight,
): { accumulating: Record<string, number>; rewritten: Record<string, number> } {
  const all = growth(before.tables, after.tables);
  const accumulating: Record<string, number> = {};
  const rewritten: Record<string, number> = {};
  for (const [name, bytes] of Object.entries(all)) {
    const gained =
      before.rows === null || after.rows === null || (after.rows[name] ?? 0) > (before.rows[name] ?? 0);
    (gained ? accumulating : rewritten)[name] = bytes;
  }
  return { accumulating, rewritten };
}

/** Bytes grown outside the rollup tables (a quiet hour weighs its rollup rows whole, as the next hour's). */
export function growthOutsideRollups(growth: Record<string, number>): number {
  return Object.entries(growth)
    .filter(([name]) => !name.includes('rollup'))
    .reduce((sum, [, d]) => sum + d, 0);
}
