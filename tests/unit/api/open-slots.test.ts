// The slots the front door keeps open follow the event loop's lag: a lagging loop closes a quarter of them, down
// to a floor, and a quick one reopens them one at a time, up to the configured limit.
import { describe, expect, it } from 'vitest';
import { openSlotsAfter } from '@/lib/api/front-door';

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
});
