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

/**
 * `text` with `count` more samples in bucket `idx`: what formatting the merge gives, without building maps. The
 * rollup upsert runs this once per probe. Text that is not canonical (unsorted, repeated, malformed or empty
 * entries) takes the parse-and-format path, so the result is the same either way.
 */
export function addToHistogram(text: string, idx: number, count: number): string {
  if (!Number.isInteger(idx) || idx < 0 || !Number.isInteger(count) || count <= 0) {
    return slowAdd(text, idx, count);
  }
  if (text === '') return `${idx}:${count}`;
  let start = 0;
  let previous = -1;
  let insertAt = -1;
  let replace: { from: number; to: number; count: number } | null = null;
  while (start < text.length) {
    let end = text.indexOf(',', start);
    if (end < 0) end = text.length;
    const colon = text.indexOf(':', start);
    if (colon < 0 || colon >= end) return slowAdd(text, idx, count);
    const k = decimalAt(text, start, colon);
    const c = decimalAt(text, colon + 1, end);
    if (k <= previous || c <= 0) return slowAdd(text, idx, count);
    if (k === idx) replace = { from: colon + 1, to: end, count: c + count };
    else if (k > idx && insertAt < 0 && !replace) insertAt = start;
    previous = k;
    start = end + 1;
  }
  // A trailing comma is not canonical either.
  if (start === text.length) return slowAdd(text, idx, count);
  if (replace) return `${text.slice(0, replace.from)}${replace.count}${text.slice(replace.to)}`;
  if (insertAt >= 0) return `${text.slice(0, insertAt)}${idx}:${count},${text.slice(insertAt)}`;
  return `${text},${idx}:${count}`;
}

/** The canonical decimal (digits only, no leading zero) in text[from, to), or -1. */
function decimalAt(text: string, from: number, to: number): number {
  if (to <= from || to - from > 15 || (text.charCodeAt(from) === 48 && to - from > 1)) return -1;
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

function slowAdd(text: string, idx: number, count: number): string {
  return formatHistogram(mergeHistograms(parseHistogram(text), new Map([[idx, count]])));
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
