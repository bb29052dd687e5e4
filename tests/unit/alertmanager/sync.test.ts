// Alert sync's decisions: what a sink's stored alerts become against what fires now, and when it is pushed.
import { describe, expect, it } from 'vitest';
import { planSinkAlerts, pullsForward, RESOLVED_KEPT_MS, resendDue } from '@/lib/alertmanager/sync';
import type { StoredSinkAlert } from '@/db/queries/alert-sinks';
import type { DesiredAlert } from '@/lib/schemas/alert-sink';

const alert = (fingerprint: string, summary = 's'): DesiredAlert => ({
  balancerId: 'bal_1',
  alertname: 'ErawatchNonUniform',
  fingerprint,
  labels: { alertname: 'ErawatchNonUniform', fp: fingerprint },
  annotations: { summary },
  generatorUrl: 'http://erawatch.test/balancers/bal_1',
});
const stored = (fingerprint: string, endsAt: number | null, summary = 's'): StoredSinkAlert => ({
  fingerprint,
  annotations: { summary },
  generatorUrl: 'http://erawatch.test/balancers/bal_1',
  endsAt,
});

describe('planSinkAlerts', () => {
  it('starts new alerts, revives resolved ones, rewrites changed ones and resolves what no longer fires', () => {
    const plan = planSinkAlerts(
      [stored('same', null), stored('back', 500), stored('reworded', null), stored('gone', null)],
      [alert('same'), alert('back'), alert('reworded', 'other words'), alert('new')],
      1_000_000,
    );
    expect(plan.started.map((a) => a.fingerprint)).toEqual(['new']);
    expect(plan.updated.map((u) => [u.alert.fingerprint, u.revived])).toEqual([
      ['back', true],
      ['reworded', false],
    ]);
    expect(plan.resolved).toEqual(['gone']);
    expect(plan.forgetResolvedBefore).toBe(1_000_000 - RESOLVED_KEPT_MS);
    expect(plan.changed).toBe(true);
  });

  it('a reworded alert alone is no change to push at once; the same alerts are nothing to write', () => {
    expect(planSinkAlerts([stored('a', null)], [alert('a', 'new words')], 1).changed).toBe(false);
    const quiet = planSinkAlerts([stored('a', null), stored('old', 5)], [alert('a')], 10);
    expect(quiet).toMatchObject({ started: [], updated: [], resolved: [], changed: false });
  });
});

describe('when a sink is pushed', () => {
  it('a change pulls forward a push waiting for its retry, not one not yet tried or already due', () => {
    expect(pullsForward({ id: 'm', attempts: 1, nextAttemptAt: 2_000 }, true, 1_000)).toBe(true);
    expect(pullsForward({ id: 'm', attempts: 1, nextAttemptAt: 2_000 }, false, 1_000)).toBe(false);
    expect(pullsForward({ id: 'm', attempts: 0, nextAttemptAt: 2_000 }, true, 1_000)).toBe(false);
    expect(pullsForward({ id: 'm', attempts: 2, nextAttemptAt: 1_000 }, true, 1_000)).toBe(false);
  });

  it('without a change, again once the resend interval has passed', () => {
    expect(resendDue(null, 1_000, 60_000)).toBe(true);
    expect(resendDue(1_000, 60_999, 60_000)).toBe(false);
    expect(resendDue(1_000, 61_000, 60_000)).toBe(true);
  });
});
