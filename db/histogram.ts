// Latency histogram over fixed log-spaced buckets, stored sparse as "index:count,...". Pure.

/** Upper bounds in ms; the last bucket is everything above. */
export const LATENCY_BUCKETS_MS = [
  1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 700, 1_000, 1_500, 2_000, 3_000, 5_000,
  7_000, 10_000, 15_000, 20_000, 30_000, 60_000,
] as const;

export type Histogram = Map<number, number>;

export function bucketOf(ms: number): number {
  for (let i = 0; i < LATENCY_BUCKETS_MS.length; i++) {
    if (ms <= (LATENCY_BUCKETS_MS[i] ?? 0)) return i;
  }
  return LATENCY_BUCKETS_MS.length;
}

// Parsed and formatted once per probe (the rollup merge in SQL): index scans rather than split() arrays.
export function parseHistogram(text: string): Histogram {
  const h: Histogram = new Map();
  if (text === '') return h;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf(',', start);
    if (end < 0) end = text.length;
    const colon = text.indexOf(':', start);
    if (colon >= 0 && colon < end) {
      // Like "k:v[:ignored]": the count ends at a second colon, if any.
      const second = text.indexOf(':', colon + 1);
      const idx = Number(text.slice(start, colon));
      const count = Number(text.slice(colon + 1, second >= 0 && second < end ? second : end));
      if (Number.isInteger(idx) && Number.isInteger(count) && count > 0)
        h.set(idx, (h.get(idx) ?? 0) + count);
    }
    start = end + 1;
  }
  return h;
}

export function formatHistogram(h: Histogram): string {
  const keys: number[] = [];
  for (const [k, c] of h) if (c > 0) keys.push(k);
  keys.sort((a, b) => a - b);
  let out = '';
  for (const k of keys) out += `${out === '' ? '' : ','}${k}:${h.get(k) ?? 0}`;
  return out;
}

export function mergeHistograms(into: Histogram, from: Histogram): Histogram {
  for (const [k, c] of from) into.set(k, (into.get(k) ?? 0) + c);
  return into;
}

/** The upper bound of the bucket holding quantile q (0..1), or null for an empty histogram. */
export function quantileMs(h: Histogram, q: number): number | null {
  let total = 0;
  for (const c of h.values()) total += c;
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const [k, c] of [...h.entries()].sort((a, b) => a[0] - b[0])) {
    seen += c;
    if (seen >= rank) return LATENCY_BUCKETS_MS[k] ?? Infinity;
  }
  return null;
}
