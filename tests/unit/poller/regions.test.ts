import { describe, expect, it } from 'vitest';
import { combineStep, regionProbes } from '@/lib/poller/regions';
import { analyzeCycle, type BalancerAnalysis, type EventDraft } from '@/lib/rollout';
import { MODERN, T0, cycleInput, modernVerdict, node } from '../rollout/verdict-factory';

const v = (version: string) => modernVerdict({ serverInfo: { name: 'shop', version } });
const regionAnalysis = (at: number, version: string, previous: BalancerAnalysis | null = null) =>
  analyzeCycle(
    cycleInput({
      at,
      nodes: [node('a', v(version)), node('b', v(version))],
      gateRevisions: [MODERN],
      previous: previous?.snapshot ?? null,
    }),
  );

describe('which regions probe a balancer', () => {
  it('a balancer with no regions is probed by every region', () => {
    expect(regionProbes(null, 'us-east')).toBe(true);
    expect(regionProbes([], 'us-east')).toBe(true);
    expect(regionProbes(['eu-west'], 'us-east')).toBe(false);
    expect(regionProbes(['eu-west', 'us-east'], 'us-east')).toBe(true);
  });
});

describe('combineStep: two regions taking turns', () => {
  it('emits the region split once, whichever region finishes a cycle, and leaves a stale region out', () => {
    const interval = 10_000;
    const events: EventDraft[] = [];
    let previous: BalancerAnalysis | null = null;
    const stored = new Map<string, { region: string; analysis: BalancerAnalysis; analyzedAt: number }>();
    const own = new Map<string, BalancerAnalysis>();
    const cycle = (region: string, at: number, version: string) => {
      const analysis = regionAnalysis(at, version, own.get(region) ?? null);
      own.set(region, analysis);
      const step = combineStep({
        balancerId: 'bal-1',
        at,
        intervalMs: interval,
        mine: { region, analysis },
        stored: [...stored.values()],
        expectedRegions: ['eu-west', 'us-east'],
        previous: previous?.snapshot ?? null,
      });
      stored.set(region, { region, analysis, analyzedAt: at });
      previous = step.combined;
      events.push(...step.events);
      return step.combined;
    };
    expect(cycle('eu-west', T0, '2.0.0').missingRegions).toEqual(['us-east']);
    const split = cycle('us-east', T0 + 1_000, '3.0.0');
    expect(split.severity).toBe('region-split');
    cycle('eu-west', T0 + interval, '2.0.0');
    cycle('us-east', T0 + interval + 1_000, '3.0.0');
    expect(events.filter((e) => e.type === 'balancer.region_split')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'balancer.diverged')).toHaveLength(0);

    // us-east's worker stops: after three intervals its last result no longer counts.
    const alone = cycle('eu-west', T0 + interval + 1_000 + 3 * interval + 1, '2.0.0');
    expect(alone.regions?.map((r) => r.region)).toEqual(['eu-west']);
    expect(alone.missingRegions).toEqual(['us-east']);
    expect(alone.gates[0]?.ready).toBe(false);
    // A missing answer is not agreement: the split stays settled, no converged event.
    expect(events.filter((e) => e.type === 'balancer.region_converged')).toHaveLength(0);
  });
});
