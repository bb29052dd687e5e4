// The slots the front door keeps open follow the event loop's lag: a lagging loop closes a quarter of them, down
// to a floor, and a quick one reopens them one at a time, up to the configured limit.
import { describe, expect, it } from 'vitest';
import { budgetAfter, openSlotsAfter } from '@/lib/api/front-door';

describe('openSlotsAfter', () => {
  it('closes a quarter of the open slots while the loop lags, never below 8', () => {
    let open = 32;
    const seen: number[] = [];
    for (let i = 0; i < 8; i++) seen.push((open = openSlotsAfter(open, 32, 900)));
    expect(seen).toEqual([24, 18, 13, 9, 8, 8, 8, 8]);
  });

  it('reopens one slot per quick sample, up to the limit, and holds between the thresholds', () => {
    expect(openSlotsAfter(8, 32, 10)).toBe(9);
    expect(openSlotsAfter(32, 32, 10)).toBe(32);
    expect(openSlotsAfter(20, 32, 100)).toBe(20);
  });

  it('a limit at or below the floor is never lowered', () => {
    expect(openSlotsAfter(4, 4, 5_000)).toBe(4);
    expect(openSlotsAfter(8, 8, 5_000)).toBe(8);
  });

  it('closes slots when the requests that finished held theirs for over a second (their median)', () => {
    expect(openSlotsAfter(32, 32, 0, 4_000)).toBe(24);
    expect(openSlotsAfter(24, 32, 0, 900)).toBe(24);
    expect(openSlotsAfter(24, 32, 0, 100)).toBe(25);
  });
});

describe('budgetAfter', () => {
  it('admits three quarters of the last sample while the loop lags, at least 8, and unbounded once quick', () => {
    expect(budgetAfter(Infinity, 200, 2_500)).toBe(150);
    expect(budgetAfter(150, 150, 2_500)).toBe(112);
    expect(budgetAfter(10, 10, 2_500)).toBe(8);
    // A lag in a quiet sample (fewer than 8 admitted) lowers it to 32 at most.
    expect(budgetAfter(Infinity, 0, 2_500)).toBe(32);
    expect(budgetAfter(20, 3, 2_500)).toBe(20);
    expect(budgetAfter(112, 50, 100)).toBe(112);
    expect(budgetAfter(112, 50, 10)).toBe(141);
    expect(budgetAfter(2_000, 10, 10)).toBe(Infinity);
    expect(budgetAfter(Infinity, 10, 10)).toBe(Infinity);
  });
});
