// Rollout windows' rules outside the analysis: a window's deadline lies ahead of its opening, and the alerts
// a rollout is expected to raise are held while it runs, then dropped or sent.
import { describe, expect, it } from 'vitest';
import { ValidationError } from '@/lib/errors';
import { checkWindowDeadline, heldByWindow, settleHeldAlert } from '@/lib/rollout/window';

describe('checkWindowDeadline', () => {
  it('lets a deadline after now through', () => {
    expect(() => checkWindowDeadline(1_001, 1_000)).not.toThrow();
  });

  it.each([999, 1_000])('refuses %i at 1000 on the deadline field', (deadline) => {
    let err: unknown = null;
    try {
      checkWindowDeadline(deadline, 1_000);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([{ path: 'deadline', message: 'must be in the future' }]);
  });
});

describe('heldByWindow', () => {
  it('holds the alerts a rollout is expected to raise, before the deadline of an open window', () => {
    for (const type of ['balancer.diverged', 'node.era_changed', 'node.catalog_changed'])
      expect(heldByWindow(type, 1_000, { deadline: 2_000 })).toBe(true);
  });

  it('holds nothing without a window, at or past its deadline, or of any other type', () => {
    expect(heldByWindow('balancer.diverged', 1_000, null)).toBe(false);
    expect(heldByWindow('balancer.diverged', 2_000, { deadline: 2_000 })).toBe(false);
    expect(heldByWindow('node.unavailable', 1_000, { deadline: 2_000 })).toBe(false);
  });
});

describe('settleHeldAlert', () => {
  it.each([
    [{ closedAt: 1_500, deadline: 2_000 }, 1_600, 'suppress'],
    [{ closedAt: 2_000, deadline: 2_000 }, 2_100, 'suppress'],
    [{ closedAt: null, deadline: 2_000 }, 2_000, 'release'],
    [{ closedAt: 2_500, deadline: 2_000 }, 2_600, 'release'],
    [{ closedAt: null, deadline: null }, 1_000, 'release'],
    [{ closedAt: null, deadline: 2_000 }, 1_999, 'hold'],
  ] as const)('%o at %i: %s', (window, now, fate) => {
    expect(settleHeldAlert(window, now)).toBe(fate);
  });
});
