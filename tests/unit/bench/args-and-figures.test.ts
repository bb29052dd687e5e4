// The benchmarks' flags and the multi-worker arithmetic: bad flags are refused with a message naming the
// flag, and the figures (CPU from /proc, lag, double probes, take-over, growth per hour) come out as defined.
import { describe, expect, it } from 'vitest';
import { parseApiArgs } from '@/bench/api';
import { parsePollerArgs } from '@/bench/support/poller-args';
import {
  findDoubleProbes,
  growthOutsideRollups,
  perHour,
  perQuietHourAtOffered,
  splitGrowth,
  probeLags,
  procStatCpuSeconds,
  procStatParent,
  takeoverSeconds,
} from '@/bench/support/worker-figures';

describe('parsePollerArgs', () => {
  it('keeps the one-process SQLite benchmark as the default', () => {
    expect(parsePollerArgs([])).toMatchObject({ store: 'sqlite', workers: null, nodes: 10_000 });
    expect(parsePollerArgs(['--nodes', '60000', '--per-balancer', '500'])).toMatchObject({
      store: 'sqlite',
      workers: null,
      nodes: 60_000,
      perBalancer: 500,
    });
  });

  it('runs worker processes on PostgreSQL (three unless told) or on SQLite when --workers is given', () => {
    expect(parsePollerArgs(['--store', 'postgres'])).toMatchObject({ store: 'postgres', workers: 3 });
    expect(parsePollerArgs(['--store', 'postgres', '--workers', '1'])).toMatchObject({ workers: 1 });
    expect(parsePollerArgs(['--workers', '3'])).toMatchObject({ store: 'sqlite', workers: 3 });
    expect(parsePollerArgs(['--store', 'both'])).toMatchObject({ store: 'both', workers: null });
    expect(parsePollerArgs(['--history', '60m'])).toMatchObject({ historyHours: 1 });
  });

  it('takes the probe HTTP client for the in-process run', () => {
    expect(parsePollerArgs([])).toMatchObject({ httpClient: 'h1' });
    expect(parsePollerArgs(['--http-client', 'undici'])).toMatchObject({ httpClient: 'undici' });
  });

  it('takes --tls (no value) and the fleet keep-alive timeout, none included', () => {
    expect(parsePollerArgs([])).toMatchObject({ tls: false, keepAliveMs: 60_000 });
    expect(parsePollerArgs(['--tls', '--keep-alive-timeout', '5s', '--nodes', '2000'])).toMatchObject({
      tls: true,
      keepAliveMs: 5_000,
      nodes: 2_000,
    });
    expect(parsePollerArgs(['--keep-alive-timeout', 'none', '--tls'])).toMatchObject({
      tls: true,
      keepAliveMs: null,
      nodes: 2_000,
    });
  });

  it.each([
    [['--tls', '--workers', '2'], '--tls applies to the in-process run only'],
    [['--tls', '--store', 'postgres'], '--tls applies to the in-process run only'],
    [['--tls', '--nodes', '60000'], '--tls gives every node a port of its own: at most 6000 nodes'],
    [['--keep-alive-timeout', '0s'], "--keep-alive-timeout must be none or 1s to 1h, got '0s'"],
    [['--keep-alive-timeout', 'forever'], "not a duration: 'forever'"],
    [['--http-client', 'fetch'], "--http-client must be h1 or undici, got 'fetch'"],
    [
      ['--http-client', 'undici', '--workers', '2'],
      '--http-client undici applies to the in-process run only',
    ],
    [['--store', 'mysql'], "--store must be sqlite, postgres or both, got 'mysql'"],
    [['--store', ''], "--store must be sqlite, postgres or both, got ''"],
    [
      ['--store', 'both', '--workers', '2'],
      '--store both runs SQLite in process and PostgreSQL with one worker',
    ],
    [['--workers', '0'], "--workers must be an integer from 1 to 16, got '0'"],
    [['--workers', '-2'], "--workers must be an integer from 1 to 16, got '-2'"],
    [['--workers', '2.5'], "--workers must be an integer from 1 to 16, got '2.5'"],
    [['--workers', '17'], "--workers must be an integer from 1 to 16, got '17'"],
    [['--workers', 'three'], "--workers must be an integer from 1 to 16, got 'three'"],
    [['--nodes', '0'], '--nodes must be an integer from 1 to'],
    [['--concurrency', '1e3'], "--concurrency must be an integer from 1 to 10000, got '1e3'"],
    [['--workers'], 'missing value for --workers'],
    [['--duration', '10s', '--interval', '30s'], '--duration must be longer than 3 intervals'],
    [['--shards', '2'], 'unknown flag --shards'],
  ])('refuses %j', (argv, message) => {
    expect(() => parsePollerArgs(argv)).toThrow(message);
  });
});

describe('procStatCpuSeconds', () => {
  // Field 2 holds spaces and a parenthesis, as a process may name itself.
  const stat =
    '4242 (node (x) y) S 4000 4242 4000 0 -1 4194304 100 0 0 0 250 50 30 20 20 0 11 0 1000 1 1 ' +
    '18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0';

  it('adds user and system time, and the reaped children when asked', () => {
    expect(procStatCpuSeconds(stat, 100)).toBe(3);
    expect(procStatCpuSeconds(stat, 100, true)).toBe(3.5);
    expect(procStatParent(stat)).toBe(4000);
  });

  it('refuses text that is not a stat line', () => {
    expect(() => procStatCpuSeconds('no fields here', 100)).toThrow('not a /proc/<pid>/stat line');
  });
});

describe('probe figures', () => {
  const interval = 30_000;

  it('measures lag past each node’s phase slot, only inside the window', () => {
    const phase = (n: number) => (n === 1 ? 0 : n === 2 ? 15_000 : undefined);
    const times = {
      1: [60_010, 90_250, 120_000],
      2: [75_100, 105_900],
      3: [61_000], // no phase: not one of the benchmark's nodes
    };
    expect([...probeLags(times, phase, interval, 60_000, 120_000)]).toEqual([10, 100, 250, 900]);
  });

  it('counts two probes of a node closer than the minimum gap, by the later one’s time', () => {
    const times = { 1: [0, 30_000, 40_000, 70_000], 2: [5_000, 5_010], 3: [30_000, 60_000] };
    expect(findDoubleProbes(times, interval / 2, 10_000, 100_000)).toEqual([
      { node: 1, earlier: 30_000, later: 40_000 },
    ]);
    expect(findDoubleProbes(times, interval / 2, 0, 100_000)).toHaveLength(2);
  });

  it('times the take-over by the slowest unit’s first probe after the kill', () => {
    const times = { 1: [900, 1_500], 2: [4_000], 3: [2_000], 4: [] };
    expect(takeoverSeconds(times, [[1, 2], [3]], 1_000)).toBe(1);
    expect(takeoverSeconds(times, [[1], [4]], 1_000)).toBeNull();
  });

  it('scales growth to an hour and refuses an empty window', () => {
    expect(perHour(1_000, 3_000, 60_000)).toBe(120_000);
    expect(() => perHour(0, 1, 0)).toThrow('longer than 0 ms');
  });

  it('counts growth of tables that gained rows as accumulating, and of the others as rewritten in place', () => {
    const before = {
      total: 0,
      tables: { subject_states: 100, subject_history: 50 },
      rows: { subject_states: 10, subject_history: 5 },
    };
    const after = {
      total: 0,
      tables: { subject_states: 900, subject_history: 80, events: 10 },
      rows: { subject_states: 10, subject_history: 6, events: 1 },
    };
    expect(splitGrowth(before, after)).toEqual({
      accumulating: { subject_history: 30, events: 10 },
      rewritten: { subject_states: 800 },
    });
    // Without row counts every table's growth accumulates.
    expect(splitGrowth({ ...before, rows: null }, { ...after, rows: null }).rewritten).toEqual({});
  });

  it('leaves the rollup tables and their indexes out of steady growth (an hour of rollups is weighed whole)', () => {
    expect(
      growthOutsideRollups({ subject_history: 30, node_rollups: 600, region_rollups_pk: 40, events: -4 }),
    ).toBe(26);
  });

  it('scales steady growth by probes, so workers that fell behind are weighed at the offered rate', () => {
    // 60 s window, 200 probes/s offered, 100/s done: 1,200,000 bytes per hour done, twice that offered.
    expect(perQuietHourAtOffered(20_000, 6_000, 200)).toBeCloseTo(2_400_000, 6);
    expect(perQuietHourAtOffered(-5, 10, 1)).toBe(0);
    expect(() => perQuietHourAtOffered(1, 0, 1)).toThrow('no probes');
  });
});

describe('parseApiArgs', () => {
  it('runs SQLite alone unless --store postgres asks for both', () => {
    expect(parseApiArgs([]).store).toBe('sqlite');
    expect(parseApiArgs(['--store', 'postgres']).store).toBe('postgres');
  });

  it('refuses an unknown store', () => {
    expect(() => parseApiArgs(['--store', 'pg'])).toThrow("--store must be sqlite or postgres, got 'pg'");
  });
});
