import { describe, expect, it } from 'vitest';
import { assignPhases, followingDue, nextSlot } from '@/lib/poller/schedule';

describe('the scheduler spreads cycles across the interval', () => {
  it('gives the subjects of one interval evenly spaced phases, each interval on its own', () => {
    const rows = [
      ...Array.from({ length: 4 }, (_, i) => ({ key: `b:${i}`, intervalMs: 30_000 })),
      { key: 's:x', intervalMs: 60_000 },
      { key: 's:y', intervalMs: 60_000 },
    ];
    const phases = assignPhases(rows);
    expect(['b:0', 'b:1', 'b:2', 'b:3'].map((k) => phases.get(k))).toEqual([0, 7_500, 15_000, 22_500]);
    expect([phases.get('s:x'), phases.get('s:y')]).toEqual([0, 30_000]);
  });

  it('120 balancers on 30 s start 250 ms apart: no two cycles bunch up', () => {
    const phases = [
      ...assignPhases(
        Array.from({ length: 120 }, (_, i) => ({
          key: `b:${String(i).padStart(3, '0')}`,
          intervalMs: 30_000,
        })),
      ).values(),
    ].sort((a, b) => a - b);
    const gaps = phases.slice(1).map((p, i) => p - (phases[i] ?? 0));
    expect(new Set(gaps)).toEqual(new Set([250]));
  });

  it('finds the next slot of a phase, at or after a time', () => {
    expect(nextSlot(100_000, 30_000, 7_500)).toBe(127_500);
    expect(nextSlot(127_500, 30_000, 7_500)).toBe(127_500);
    expect(nextSlot(127_501, 30_000, 7_500)).toBe(157_500);
  });

  it('keeps a cycle on its phase, brings an off-phase one onto it, and skips slots an overrun missed', () => {
    const entry = { intervalMs: 30_000, phaseMs: 7_500 };
    // On phase and on time: one interval later, no drift.
    expect(followingDue(entry, 127_500, 127_510)).toBe(157_500);
    // A new subject probed at once (off phase): the next cycle is on its phase, at least half an interval on.
    expect(followingDue(entry, 140_000, 140_000)).toBe(157_500);
    expect(followingDue(entry, 120_000, 120_000)).toBe(157_500);
    // Started 70 s late: the slots it missed are skipped, not run back to back.
    expect(followingDue(entry, 127_500, 197_500)).toBe(217_500);
  });
});
