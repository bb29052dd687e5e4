// The slots the front door keeps open follow the event loop's lag while the process is busy: a lagging loop in a
// busy sample closes a quarter of them, down to a floor, and a quick one (or one that keeps up and refused
// nobody) reopens them one at a time, up to the configured limit. A lag in a quiet sample (other processes on
// a shared CPU, the start-up) closes nothing and lowers no budget.
import { describe, expect, it } from 'vitest';
import { budgetAfter, openSlotsAfter } from '@/lib/api/front-door';

/** A sample that admitted this many and refused that many. */
const load = (admitted: number, refused = 0) => ({ admitted, refused });

describe('openSlotsAfter', () => {
  it('closes a quarter of the open slots while the loop lags in busy samples, never below 8', () => {
    let open = 32;
    const seen: number[] = [];
    for (let i = 0; i < 8; i++) seen.push((open = openSlotsAfter(open, 32, 900, 0, load(40, 100))));
    expect(seen).toEqual([24, 18, 13, 9, 8, 8, 8, 8]);
  });

  it('closes none for a lag in a quiet sample: the lag is not the requests it admitted', () => {
    expect(openSlotsAfter(32, 32, 900, 0, load(0))).toBe(32);
    expect(openSlotsAfter(32, 32, 5_000, 0, load(7, 3))).toBe(32);
  });

  it('reopens one slot per quick sample, or per sample that kept up and refused nobody, up to the limit', () => {
    expect(openSlotsAfter(8, 32, 10, 0, load(40, 100))).toBe(9);
    expect(openSlotsAfter(32, 32, 10, 0, load(40))).toBe(32);
    // Between the thresholds: held while requests are refused, reopened once nobody is.
    expect(openSlotsAfter(20, 32, 100, 0, load(40, 5))).toBe(20);
    expect(openSlotsAfter(20, 32, 100, 0, load(40))).toBe(21);
    expect(openSlotsAfter(20, 32, 100, 0, load(0))).toBe(21);
  });

  it('a limit at or below the floor is never lowered', () => {
    expect(openSlotsAfter(4, 4, 5_000, 0, load(40, 100))).toBe(4);
    expect(openSlotsAfter(8, 8, 5_000, 0, load(40, 100))).toBe(8);
  });

  it('closes slots when the requests that finished held theirs for over a second (their median)', () => {
    expect(openSlotsAfter(32, 32, 0, 4_000, load(40))).toBe(24);
    expect(openSlotsAfter(24, 32, 0, 900, load(40))).toBe(24);
    expect(openSlotsAfter(24, 32, 0, 100, load(40))).toBe(25);
  });
});

describe('budgetAfter', () => {
  it('admits three quarters of a busy sample while the loop lags, at least 8, and unbounded once quick', () => {
    expect(budgetAfter(Infinity, 2_500, load(200, 50))).toBe(150);
    expect(budgetAfter(150, 2_500, load(150, 50))).toBe(112);
    expect(budgetAfter(10, 2_500, load(10, 50))).toBe(8);
    expect(budgetAfter(112, 100, load(50, 20))).toBe(112);
    expect(budgetAfter(112, 10, load(50, 20))).toBe(141);
    expect(budgetAfter(2_000, 10, load(10))).toBe(Infinity);
    expect(budgetAfter(Infinity, 10, load(10))).toBe(Infinity);
  });

  it('a lag in a quiet sample lowers nothing: the first requests after it are not refused', () => {
    // The start-up's first sample, or another process taking the CPU, while this one serves nobody.
    expect(budgetAfter(Infinity, 800, load(0))).toBe(Infinity);
    expect(budgetAfter(Infinity, 5_000, load(7, 2))).toBe(Infinity);
    expect(budgetAfter(40, 800, load(3))).toBe(40);
  });

  it('once nobody is refused the budget grows back even while the loop lags moderately', () => {
    // A loaded shared machine keeps the lag between the thresholds: the door must not stay shut after a flood.
    let budget = 8;
    for (let i = 0; i < 30 && Number.isFinite(budget); i++) budget = budgetAfter(budget, 120, load(2));
    expect(budget).toBe(Infinity);
    // While requests are still refused at that lag, it holds.
    expect(budgetAfter(8, 120, load(8, 30))).toBe(8);
  });
});
