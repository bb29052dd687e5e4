import { describe, expect, it } from 'vitest';
import {
  addToHistogram,
  bucketOf,
  formatHistogram,
  mergeHistograms,
  parseHistogram,
  quantileMs,
} from '@/db/histogram';
import {
  endKeyOfRegion,
  firstKeyOfHour,
  hourOf,
  MAX_REGION_ID,
  rollupKey,
  splitRollupKey,
} from '@/db/rollup-key';
import { createLimiter } from '@/lib/poller/limiter';
import { summarizeLag } from '@/lib/poller/status';
import { classifyTransition, type PriorState } from '@/db/queries/subjects';

const prior = (fingerprintKey: string, lastAvailableKey: string | null): PriorState => ({
  fingerprintKey,
  verdictDigest: null,
  lastAvailableKey,
  fingerprintSince: 0,
  probes: 3,
  failures: 0,
  consecutiveFailures: 0,
  lastSeenAt: 0,
  probedAt: 0,
});

describe('classifyTransition', () => {
  it.each([
    ['first probe, available', null, 'fp_a', { newSpan: true, isChange: false }],
    ['first probe, unavailable', null, null, { newSpan: true, isChange: false }],
    ['same fingerprint: counters only', prior('fp_a', 'fp_a'), 'fp_a', { newSpan: false, isChange: false }],
    [
      'still unavailable: counters only',
      prior('unavailable', 'fp_a'),
      null,
      { newSpan: false, isChange: false },
    ],
    ['goes down: new span, not a change', prior('fp_a', 'fp_a'), null, { newSpan: true, isChange: false }],
    [
      'recovers as before: new span, not a change',
      prior('unavailable', 'fp_a'),
      'fp_a',
      { newSpan: true, isChange: false },
    ],
    [
      'recovers as something else: a change',
      prior('unavailable', 'fp_a'),
      'fp_b',
      { newSpan: true, isChange: true },
    ],
    ['changes directly: a change', prior('fp_a', 'fp_a'), 'fp_b', { newSpan: true, isChange: true }],
    [
      'first answer after only outages: not a change',
      prior('unavailable', null),
      'fp_a',
      { newSpan: true, isChange: false },
    ],
  ])('%s', (_label, p, key, expected) => {
    expect(classifyTransition(p, key)).toEqual(expected);
  });
});

describe('latency histogram', () => {
  it('buckets by fixed upper bounds, the last open-ended', () => {
    expect([0, 1, 1.5, 2, 100, 101, 60_000, 60_001].map(bucketOf)).toEqual([0, 0, 1, 1, 11, 12, 27, 28]);
  });

  it('round-trips sparse text and merges', () => {
    const a = parseHistogram('3:2,11:1');
    mergeHistograms(a, parseHistogram('11:4,0:1'));
    expect(formatHistogram(a)).toBe('0:1,3:2,11:5');
    expect(parseHistogram('')).toEqual(new Map());
    expect(formatHistogram(parseHistogram('x:1,2:y,4:0,5:2'))).toBe('5:2');
    // Malformed parts are skipped one by one; a repeated index adds up; a third field is ignored.
    expect(formatHistogram(parseHistogram('7,,3:1:9,3:2,-1:4,2.5:1,1:1.5'))).toBe('-1:4,3:3');
  });

  it('adds one bucket to stored text exactly as merging and formatting would', () => {
    expect(addToHistogram('', 4, 1)).toBe('4:1');
    expect(addToHistogram('3:2,11:1', 11, 1)).toBe('3:2,11:2');
    expect(addToHistogram('3:2,11:1', 0, 1)).toBe('0:1,3:2,11:1');
    expect(addToHistogram('3:2,11:1', 7, 2)).toBe('3:2,7:2,11:1');
    expect(addToHistogram('3:2,11:1', 28, 1)).toBe('3:2,11:1,28:1');
    // Whatever is not canonical, the text is normalised the same way the map path would.
    const odd = ['7,,3:1:9,3:2,-1:4', '11:1,3:2', '3:1,3:1', '03:1', '3:0,4:1', '3:1,', ' 3:1', 'x:1,2:y'];
    for (const text of odd) {
      for (const idx of [0, 3, 4, 12]) {
        const expected = formatHistogram(mergeHistograms(parseHistogram(text), new Map([[idx, 1]])));
        expect(addToHistogram(text, idx, 1), `${text} + ${idx}`).toBe(expected);
      }
    }
    // Every canonical text built by adding one sample at a time matches the map path.
    let text = '';
    const map = new Map<number, number>();
    for (const idx of [5, 2, 5, 9, 0, 2, 28, 9, 9, 1]) {
      text = addToHistogram(text, idx, 1);
      mergeHistograms(map, new Map([[idx, 1]]));
      expect(text).toBe(formatHistogram(map));
    }
  });

  it('quantiles are bucket upper bounds', () => {
    const h = parseHistogram('3:50,11:45,17:5');
    expect(quantileMs(h, 0.5)).toBe(5);
    expect(quantileMs(h, 0.95)).toBe(100);
    expect(quantileMs(h, 0.96)).toBe(1_000);
    expect(quantileMs(new Map(), 0.5)).toBeNull();
  });
});

describe('limiter', () => {
  it('never runs more than the cap at once and runs everything', async () => {
    const limiter = createLimiter(3);
    let active = 0;
    let peak = 0;
    const gates: Array<() => void> = [];
    const tasks = Array.from({ length: 10 }, (_, i) =>
      limiter.run(async () => {
        active += 1;
        peak = Math.max(peak, active);
        await new Promise<void>((r) => gates.push(r));
        active -= 1;
        return i;
      }),
    );
    for (let released = 0; released < 10; released++) {
      await new Promise((r) => setImmediate(r));
      expect(limiter.active).toBeLessThanOrEqual(3);
      gates.shift()?.();
    }
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(peak).toBe(3);
    expect(limiter.active).toBe(0);
  });

  it('starts waiters in the order they came, through a backlog far past one array chunk', async () => {
    const limiter = createLimiter(1);
    const started: number[] = [];
    let open: () => void = () => undefined;
    const first = limiter.run(() => new Promise<void>((r) => (open = r)));
    const rest = Array.from({ length: 40_000 }, (_, i) =>
      limiter.run(async () => {
        started.push(i);
      }),
    );
    expect(limiter.waiting).toBe(40_000);
    open();
    await Promise.all([first, ...rest]);
    expect(started).toEqual(Array.from({ length: 40_000 }, (_, i) => i));
    expect(limiter.waiting).toBe(0);
    expect(limiter.active).toBe(0);
  });

  it('a failing task frees its slot', async () => {
    const limiter = createLimiter(1);
    await expect(limiter.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await limiter.run(async () => 'next')).toBe('next');
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects a cap of %s', (cap) => {
    expect(() => createLimiter(cap)).toThrow(/positive integer/);
  });
});

describe('summarizeLag', () => {
  it('p50/p99/max over the ring, count over all', () => {
    const ring = new Float64Array(4);
    // The fifth value overwrites the first: the ring holds 4, 1, 3, 2.
    [5, 1, 3, 2, 4].forEach((v, i) => (ring[i % 4] = v));
    expect(summarizeLag(ring, 5)).toEqual({ count: 5, p50Ms: 2, p99Ms: 4, maxMs: 4 });
    expect(summarizeLag(new Float64Array(4), 0)).toEqual({ count: 0, p50Ms: null, p99Ms: null, maxMs: null });
  });
});

describe('rollup keys', () => {
  it('pack hour and node seq into one ordered integer', () => {
    const hour = hourOf(Date.UTC(2026, 10, 30, 1, 59));
    const k = rollupKey(hour, 42);
    expect(splitRollupKey(k)).toEqual({ hour, seq: 42, regionId: 0 });
    expect(Number.isSafeInteger(rollupKey(hour, 2 ** 24 - 1))).toBe(true);
    // Every key of an hour sorts after every key of the hour before: pruning is one range delete.
    expect(rollupKey(hour, 1)).toBeGreaterThan(rollupKey(hour - 1, 2 ** 24 - 1));
    expect(firstKeyOfHour(hour)).toBeLessThan(rollupKey(hour, 1));
  });

  it.each([0, -1, 2 ** 24, 1.5])('rejects node seq %s', (seq) => {
    expect(() => rollupKey(1, seq)).toThrow(/out of range/);
  });

  it('put the region above the hour: region 0 keys are the keys from before regions', () => {
    const hour = hourOf(Date.UTC(2026, 10, 30, 1, 59));
    expect(rollupKey(hour, 42, 0)).toBe(hour * 2 ** 24 + 42);
    const top = rollupKey(2 ** 23 - 1, 2 ** 24 - 1, MAX_REGION_ID);
    expect(Number.isSafeInteger(top)).toBe(true);
    expect(splitRollupKey(top)).toEqual({ hour: 2 ** 23 - 1, seq: 2 ** 24 - 1, regionId: MAX_REGION_ID });
    expect(splitRollupKey(rollupKey(hour, 7, 5))).toEqual({ hour, seq: 7, regionId: 5 });
    // Within a region the key stays hour-major, and every region's keys sit in their own range.
    expect(rollupKey(hour, 1, 5)).toBeGreaterThan(rollupKey(hour - 1, 2 ** 24 - 1, 5));
    expect(firstKeyOfHour(0, 5)).toBeGreaterThanOrEqual(endKeyOfRegion(4));
    expect(rollupKey(2 ** 23 - 1, 2 ** 24 - 1, 4)).toBeLessThan(endKeyOfRegion(4));
  });

  it.each([-1, 64, 1.5])('rejects region id %s', (id) => {
    expect(() => rollupKey(1, 1, id)).toThrow(/region id out of range/);
  });
});
