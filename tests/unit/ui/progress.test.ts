import { describe, expect, it } from 'vitest';
import type { BalancerProgressView } from '@/lib/schemas/progress';
import { progressText } from '@/lib/ui/progress';

const NOW = 1_800_000_000_000;
const base: BalancerProgressView = {
  basis: 'window',
  targetLabel: 'modern 2026-07-28 · modern only',
  onTarget: 8,
  available: 20,
  share: 0.4,
  complete: false,
  targetRevision: '2026-07-28',
  servingTargetRevision: 14,
  change10m: 8,
  change1h: 8,
  trend: 'up',
  etaAt: NOW + 15 * 60_000,
  stalled: false,
  lastMoveAt: NOW,
  offerWindow: false,
};

describe('progressText', () => {
  it('a moving rollout: counts, both changes, the estimate and an up arrow', () => {
    expect(progressText(base, NOW)).toEqual({
      headline: '8 of 20 available nodes on modern 2026-07-28 · modern only',
      revision: '14 of 20 serve 2026-07-28',
      change: '+8 in 10 min · +8 in 1 h',
      outlook: 'uniform in about 15 min at this rate',
      arrow: '↑',
      percent: 40,
    });
  });

  it('stalled says so instead of an estimate; a rollback points down', () => {
    const t = progressText({ ...base, stalled: true, etaAt: null, change10m: -1, trend: 'down' }, NOW);
    expect(t.outlook).toBe('stalled: no node moved for 5 poll cycles');
    expect(t.arrow).toBe('↓');
    expect(t.change).toBe('−1 in 10 min · +8 in 1 h');
  });

  it('without a window it names the largest group and never claims the target', () => {
    const t = progressText(
      {
        ...base,
        basis: 'largest-group',
        targetLabel: 'largest group',
        etaAt: null,
        change10m: null,
        change1h: null,
        trend: 'unknown',
        offerWindow: true,
      },
      NOW,
    );
    expect(t.headline).toBe('8 of 20 available nodes in the largest group (no declared target)');
    expect(t.change).toBe('no history yet');
    expect(t.outlook).toBeNull();
    expect(t.arrow).toBe('');
  });
});
