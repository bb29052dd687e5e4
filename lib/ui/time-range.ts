// The time-range picker's ranges (balancer history, node latency and probes), kept in the URL as `?range=`.
// Client-safe, no React.

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

export const TIME_RANGES = [
  { key: '15m', label: '15 min', long: '15 minutes', ms: 15 * MIN, stepMs: MIN },
  { key: '1h', label: '1 h', long: 'hour', ms: HOUR, stepMs: MIN },
  { key: '6h', label: '6 h', long: '6 hours', ms: 6 * HOUR, stepMs: 5 * MIN },
  { key: '24h', label: '24 h', long: '24 hours', ms: DAY, stepMs: HOUR },
  { key: '7d', label: '7 d', long: '7 days', ms: 7 * DAY, stepMs: 2 * HOUR },
  { key: '30d', label: '30 d', long: '30 days', ms: 30 * DAY, stepMs: 6 * HOUR },
] as const;

export type TimeRangeKey = (typeof TIME_RANGES)[number]['key'];
export type TimeRange = (typeof TIME_RANGES)[number];

export const DEFAULT_RANGE: TimeRangeKey = '1h';
export const RANGE_PARAM = 'range';

/** The range a URL names; the default for a missing or unknown value (a bad link still shows the page). */
export function readRange(value: string | null | undefined): TimeRange {
  return (
    TIME_RANGES.find((r) => r.key === value) ??
    (TIME_RANGES.find((r) => r.key === DEFAULT_RANGE) as TimeRange)
  );
}

/**
 * The history API's query for a range ending at `now`. A step shorter than an hour reads the minute
 * rollups, which keep six hours: the range then starts at the first whole step inside them.
 */
export function historyParams(range: TimeRange, now: number): { from: number; to: number; step: string } {
  const hourly = range.stepMs % HOUR === 0;
  const from = hourly ? now - range.ms : Math.ceil((now - range.ms + MIN) / range.stepMs) * range.stepMs;
  return { from, to: now, step: `${range.stepMs / MIN}m` };
}

/** "the last hour", "the last 7 days". */
export function describeRange(range: TimeRange): string {
  return `the last ${range.long}`;
}

/** "08:05" within a day's range, "12-04 08:00" beyond. UTC. */
export function clockLabel(at: number, range: TimeRange): string {
  const iso = new Date(at).toISOString();
  return range.ms <= DAY ? iso.slice(11, 16) : iso.slice(5, 16).replace('T', ' ');
}

/** A URL's search string with the range set (the default drops the parameter), other parameters kept. */
export function withRange(search: string, key: TimeRangeKey): string {
  const qs = new URLSearchParams(search);
  if (key === DEFAULT_RANGE) qs.delete(RANGE_PARAM);
  else qs.set(RANGE_PARAM, key);
  const s = qs.toString();
  return s ? `?${s}` : '';
}
