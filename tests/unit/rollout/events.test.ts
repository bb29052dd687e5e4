import { describe, expect, it } from 'vitest';
import {
  analyzeCycle,
  diffSnapshots,
  EVENT_TYPES,
  RolloutInputError,
  type BalancerSnapshot,
  type CycleInput,
  type EventDraft,
  type EventType,
  type NodeObservation,
} from '@/lib/rollout';
import {
  MODERN,
  T0,
  cycleInput,
  dualVerdict,
  legacyVerdict,
  modernVerdict,
  node,
  unavailableVerdict,
} from './verdict-factory';

const MIN = 60_000;
type Step = Partial<CycleInput>;

/** Runs cycles one minute apart the way the poller does: analyse with the previous snapshot, then diff. */
function runCycles(steps: Step[], start: BalancerSnapshot | null = null) {
  let prev = start;
  const perCycle: EventDraft[][] = [];
  steps.forEach((step, i) => {
    const at = step.at ?? T0 + i * MIN;
    const next = analyzeCycle(cycleInput({ ...step, at, previous: prev })).snapshot;
    perCycle.push(diffSnapshots(prev, next, at));
    prev = next;
  });
  return { perCycle, all: perCycle.flat(), last: prev };
}

const brief = (events: EventDraft[]) =>
  events.map((e) =>
    e.type === 'balancer.severity_changed'
      ? `severity ${String(e.data.from)} -> ${String(e.data.to)}`
      : `${e.type}${e.nodeId ? ` ${e.nodeId}` : ''}`,
  );

const up = (id: string) => node(id, modernVerdict());
const dual = (id: string) => node(id, dualVerdict());
const old = (id: string) => node(id, legacyVerdict());
const down = (id: string, reason = 'timeout') => node(id, unavailableVerdict(reason));
const flappy = (id: string) => node(id, modernVerdict(), [T0 - 1, T0 - 2, T0 - 3, T0 - 4]);

describe('diffSnapshots: one transition, one event', () => {
  it.each<{ name: string; from: NodeObservation[]; to: NodeObservation[]; events: string[] }>([
    {
      name: 'uniform to non-uniform is balancer.diverged',
      from: [up('a'), up('b')],
      to: [up('a'), old('b')],
      events: ['balancer.diverged', 'node.era_changed b'],
    },
    {
      name: 'non-uniform to uniform is balancer.converged',
      from: [up('a'), old('b')],
      to: [up('a'), up('b')],
      events: ['balancer.converged', 'node.era_changed b'],
    },
    {
      name: 'era-split to drift is still diverged: a severity change, no new divergence',
      from: [up('a'), old('b')],
      to: [up('a'), dual('b')],
      events: ['severity era-split -> drift', 'node.era_changed b'],
    },
    {
      name: 'a timeout on one node is node.unavailable, not divergence',
      from: [up('a'), up('b')],
      to: [up('a'), down('b')],
      events: ['severity uniform -> degraded', 'node.unavailable b'],
    },
    {
      name: 'still unavailable, for another reason: nothing',
      from: [up('a'), down('b', 'timeout')],
      to: [up('a'), down('b', 'refused')],
      events: [],
    },
    {
      name: 'available again is node.recovered',
      from: [up('a'), down('b')],
      to: [up('a'), up('b')],
      events: ['severity degraded -> uniform', 'node.recovered b'],
    },
    {
      name: 'legacy to modern is node.era_changed',
      from: [old('a')],
      to: [up('a')],
      events: ['node.era_changed a'],
    },
    {
      name: 'modern-only to dual-era (served class) is node.era_changed',
      from: [up('a')],
      to: [dual('a')],
      events: ['node.era_changed a'],
    },
    {
      name: 'a new server version alone is not an era change',
      from: [up('a')],
      to: [node('a', modernVerdict({ serverInfo: { name: 'fleet-server', version: '2.9.9' } }))],
      events: [],
    },
    {
      name: 'flapping starts: node.flapping',
      from: [up('a')],
      to: [flappy('a')],
      events: ['severity uniform -> flapping', 'node.flapping a'],
    },
    { name: 'still flapping: nothing', from: [flappy('a')], to: [flappy('a')], events: [] },
    { name: 'a node that leaves the fleet: nothing', from: [up('a'), up('b')], to: [up('a')], events: [] },
    { name: 'a new available node: nothing', from: [up('a')], to: [up('a'), up('b')], events: [] },
    {
      name: 'a new node that is unavailable: node.unavailable',
      from: [up('a')],
      to: [up('a'), down('b', 'refused')],
      events: ['severity uniform -> degraded', 'node.unavailable b'],
    },
    {
      name: 'refused at the door is node.auth_gated, not node.unavailable',
      from: [up('a'), up('b')],
      to: [up('a'), down('b', 'auth_required')],
      events: ['severity uniform -> degraded', 'node.auth_gated b'],
    },
    {
      name: 'a new node that is auth-gated: node.auth_gated',
      from: [up('a')],
      to: [up('a'), down('b', 'oauth_token_failed: invalid_client')],
      events: ['severity uniform -> degraded', 'node.auth_gated b'],
    },
    {
      name: 'auth-gated, then down: node.unavailable',
      from: [up('a'), down('b', 'auth_required')],
      to: [up('a'), down('b', 'timeout')],
      events: ['node.unavailable b'],
    },
    {
      name: 'down, then auth-gated: node.auth_gated',
      from: [up('a'), down('b', 'refused')],
      to: [up('a'), down('b', 'auth_failed')],
      events: ['node.auth_gated b'],
    },
    {
      name: 'every node down: per-node events and the level, no divergence',
      from: [up('a'), up('b')],
      to: [down('a'), down('b')],
      events: ['severity uniform -> degraded', 'node.unavailable a', 'node.unavailable b'],
    },
  ])('$name', ({ from, to, events }) => {
    const { perCycle } = runCycles([{ nodes: from }, { nodes: to }, { nodes: to }]);
    expect(brief(perCycle[1] ?? [])).toEqual(events);
    expect(perCycle[2]).toEqual([]);
  });

  it('an auth-gated event says what the node was before, when it was not available', () => {
    const { perCycle } = runCycles([
      { nodes: [up('a'), down('b', 'refused')] },
      { nodes: [up('a'), down('b', 'auth_required')] },
    ]);
    expect(perCycle[1]?.map((e) => [e.type, e.data])).toEqual([
      ['node.auth_gated', { reason: 'auth_required', from: 'unavailable' }],
    ]);
  });

  it('carries data a webhook can act on', () => {
    const { perCycle } = runCycles([
      { nodes: [up('a'), old('b')] },
      { nodes: [up('a'), down('b', 'reset')] },
      { nodes: [up('a'), up('b')] },
    ]);
    // The only legacy node went down: what still answers agrees, so the split is over.
    expect(perCycle[1]).toEqual([
      {
        type: 'balancer.converged',
        balancerId: 'bal-1',
        nodeId: null,
        at: T0 + MIN,
        data: { fromSeverity: 'era-split' },
      },
      { type: 'node.unavailable', balancerId: 'bal-1', nodeId: 'b', at: T0 + MIN, data: { reason: 'reset' } },
    ]);
    expect(perCycle[2]).toEqual([
      {
        type: 'balancer.severity_changed',
        balancerId: 'bal-1',
        nodeId: null,
        at: T0 + 2 * MIN,
        data: { from: 'degraded', to: 'uniform', windowId: null },
      },
      {
        type: 'node.recovered',
        balancerId: 'bal-1',
        nodeId: 'b',
        at: T0 + 2 * MIN,
        data: { era: 'modern', servedEras: 'modern-only', downReason: 'reset' },
      },
      {
        type: 'node.era_changed',
        balancerId: 'bal-1',
        nodeId: 'b',
        at: T0 + 2 * MIN,
        data: {
          from: { era: 'legacy', servedEras: 'legacy-only' },
          to: { era: 'modern', servedEras: 'modern-only' },
        },
      },
    ]);
  });

  it('an upgrade across a restart is still an era change', () => {
    const { all } = runCycles([
      { nodes: [old('a')] },
      { nodes: [down('a', 'refused')] },
      { nodes: [up('a')] },
    ]);
    expect(brief(all)).toEqual([
      'severity uniform -> degraded',
      'node.unavailable a',
      'severity degraded -> uniform',
      'node.recovered a',
      'node.era_changed a',
    ]);
  });

  it('a divergence that outlives an outage converges once, not twice', () => {
    const { all } = runCycles([
      { nodes: [up('a'), old('b')] },
      { nodes: [down('a'), down('b')] },
      { nodes: [up('a'), up('b')] },
      { nodes: [up('a'), up('b')] },
    ]);
    expect(brief(all)).toEqual([
      'balancer.diverged',
      'severity era-split -> degraded',
      'node.unavailable a',
      'node.unavailable b',
      'balancer.converged',
      'node.recovered a',
      'node.recovered b',
      'node.era_changed b',
    ]);
  });

  it('a rollback inside a window is a severity change as visible as progress, once each', () => {
    const { all } = runCycles([
      { nodes: [dual('a'), old('b')] },
      { nodes: [dual('a'), up('b')] },
      { nodes: [dual('a'), up('b')] },
      { nodes: [dual('a'), old('b')] },
      { nodes: [dual('a'), old('b')] },
    ]);
    expect(all.filter((e) => e.type.startsWith('balancer.')).map((e) => brief([e])[0])).toEqual([
      'balancer.diverged',
      'severity era-split -> drift',
      'severity drift -> era-split',
    ]);
  });

  it('flapping that stops and starts again is a new transition', () => {
    const { all } = runCycles(
      [{ nodes: [flappy('a')] }, { nodes: [up('a')] }, { nodes: [flappy('a')] }],
      null,
    );
    expect(brief(all).filter((e) => e === 'node.flapping a')).toHaveLength(2);
  });

  it('diverged inside an open window says it is rolling, so alerts can be held', () => {
    const window = {
      id: 'w9',
      target: { era: 'modern' as const },
      openedAt: T0 - MIN,
      deadline: T0 + 60 * MIN,
    };
    const { perCycle } = runCycles([
      { nodes: [old('a'), old('b')], window },
      { nodes: [up('a'), old('b')], window },
    ]);
    expect(perCycle[1]?.[0]).toMatchObject({
      type: 'balancer.diverged',
      data: { severity: 'era-split', from: 'uniform', rolling: true, windowId: 'w9' },
    });
  });
});

describe('diffSnapshots: gates', () => {
  it('opens and closes once per transition, per revision', () => {
    const gateRevisions = [MODERN, '2025-11-25'];
    const { perCycle } = runCycles([
      { nodes: [up('a'), old('b')], gateRevisions },
      { nodes: [up('a'), up('b')], gateRevisions },
      { nodes: [up('a'), up('b')], gateRevisions },
      { nodes: [up('a'), down('b', 'refused')], gateRevisions },
      { nodes: [up('a'), down('b', 'timeout')], gateRevisions },
    ]);
    expect(brief(perCycle[1] ?? []).filter((e) => e.startsWith('gate'))).toEqual(['gate.opened']);
    expect(perCycle[1]?.find((e) => e.type === 'gate.opened')?.data).toEqual({ revision: MODERN });
    expect(perCycle[2]).toEqual([]);
    expect(perCycle[3]?.find((e) => e.type === 'gate.closed')?.data).toEqual({
      revision: MODERN,
      reasons: ['1 node unavailable: http://127.0.0.1/b (refused)'],
    });
    expect(brief(perCycle[4] ?? [])).toEqual([]);
  });

  it('a revision newly watched starts as a baseline, without an event', () => {
    const { perCycle } = runCycles([
      { nodes: [up('a')], gateRevisions: [] },
      { nodes: [up('a')], gateRevisions: [MODERN] },
    ]);
    expect(perCycle[1]).toEqual([]);
  });
});

describe('diffSnapshots: rollout.stuck', () => {
  it('is emitted once per window', () => {
    const window = {
      id: 'w1',
      target: { negotiatedVersion: MODERN },
      openedAt: T0 - MIN,
      deadline: T0 + 2 * MIN,
    };
    const steps: Step[] = [
      { nodes: [up('a'), old('b'), old('c')], window },
      { nodes: [up('a'), up('b'), old('c')], window },
      { nodes: [up('a'), up('b'), old('c')], window },
      { nodes: [up('a'), up('b'), old('c')], window },
      { nodes: [up('a'), up('b'), up('c')], window },
      { nodes: [up('a'), up('b'), old('c')], window },
    ];
    const { perCycle, all } = runCycles(steps);
    expect(perCycle[3]?.filter((e) => e.type === 'rollout.stuck')).toEqual([
      {
        type: 'rollout.stuck',
        balancerId: 'bal-1',
        nodeId: null,
        at: T0 + 3 * MIN,
        data: { windowId: 'w1', progress: '2 of 3 nodes on 2026-07-28', deadline: T0 + 2 * MIN },
      },
    ]);
    expect(all.filter((e) => e.type === 'rollout.stuck')).toHaveLength(1);
  });
});

describe('diffSnapshots: the first cycle', () => {
  it.each<{ name: string; step: Step; events: string[] }>([
    { name: 'a healthy uniform balancer emits nothing', step: { nodes: [up('a'), up('b')] }, events: [] },
    {
      name: 'a ready gate is a baseline, not an event',
      step: { nodes: [up('a')], gateRevisions: [MODERN] },
      events: [],
    },
    {
      name: 'non-uniform is actionable',
      step: { nodes: [up('a'), old('b')] },
      events: ['balancer.diverged'],
    },
    {
      name: 'unavailable nodes are actionable',
      step: { nodes: [up('a'), down('b')] },
      events: ['node.unavailable b'],
    },
    { name: 'flapping nodes are actionable', step: { nodes: [flappy('a')] }, events: ['node.flapping a'] },
    {
      name: 'a window already past its deadline is actionable',
      step: {
        nodes: [up('a'), old('b')],
        window: { id: 'w', target: { era: 'modern' }, openedAt: T0 - 2 * MIN, deadline: T0 - MIN },
      },
      events: ['balancer.diverged', 'rollout.stuck'],
    },
  ])('$name', ({ step, events }) => {
    const { perCycle } = runCycles([step]);
    expect(brief(perCycle[0] ?? [])).toEqual(events);
  });
});

describe('diffSnapshots: no event is emitted twice for one transition', () => {
  it('applying the same snapshot twice emits nothing', () => {
    const snapshots = [
      [up('a'), up('b')],
      [up('a'), old('b')],
      [up('a'), dual('b'), down('c')],
      [down('a'), down('b')],
      [flappy('a'), old('b')],
    ].map(
      (nodes) =>
        analyzeCycle(
          cycleInput({
            nodes,
            gateRevisions: [MODERN],
            window: { id: 'w', target: { era: 'modern' }, openedAt: T0 - 2 * MIN, deadline: T0 - MIN },
          }),
        ).snapshot,
    );
    for (const s of snapshots) {
      expect(diffSnapshots(s, s, T0)).toEqual([]);
      expect(diffSnapshots(s, JSON.parse(JSON.stringify(s)) as BalancerSnapshot, T0)).toEqual([]);
    }
  });

  it('a scripted rollout with repeated cycles emits each transition exactly once', () => {
    const gateRevisions = [MODERN];
    const phases: NodeObservation[][] = [
      [old('n1'), old('n2'), old('n3')],
      [dual('n1'), old('n2'), old('n3')],
      [dual('n1'), down('n2', 'refused'), old('n3')],
      [dual('n1'), dual('n2'), old('n3')],
      [dual('n1'), dual('n2'), old('n3')],
      [dual('n1'), old('n2'), old('n3')],
      [dual('n1'), dual('n2'), up('n3')],
      [dual('n1'), dual('n2'), dual('n3')],
    ];
    // Every phase is observed for three cycles: the repeats must add nothing.
    const steps = phases.flatMap((nodes) => [
      { nodes, gateRevisions },
      { nodes, gateRevisions },
      { nodes, gateRevisions },
    ]);
    const { all, perCycle } = runCycles(steps);
    expect(brief(all)).toEqual([
      'balancer.diverged',
      'node.era_changed n1',
      'node.unavailable n2',
      'node.recovered n2',
      'node.era_changed n2',
      'node.era_changed n2',
      'severity era-split -> drift',
      'node.era_changed n2',
      'node.era_changed n3',
      'balancer.converged',
      'node.era_changed n3',
      'gate.opened',
    ]);
    perCycle.forEach((events, i) => {
      if (i % 3 !== 0) expect(events).toEqual([]);
    });
    const seen = new Set(all.map((e) => `${e.type}|${e.nodeId}|${e.at}`));
    expect(seen.size).toBe(all.length);
    expect(all.every((e) => (EVENT_TYPES as readonly EventType[]).includes(e.type))).toBe(true);
  });
});

describe('diffSnapshots: bad input', () => {
  const a = analyzeCycle(cycleInput({ balancerId: 'one', nodes: [up('a')] })).snapshot;
  const b = analyzeCycle(cycleInput({ balancerId: 'two', nodes: [up('a')] })).snapshot;

  it.each<{ name: string; call: () => unknown; message: RegExp }>([
    {
      name: 'snapshots of two balancers',
      call: () => diffSnapshots(a, b, T0),
      message: /snapshots belong to different balancers: "one" and "two"/,
    },
    {
      name: 'a non-finite instant',
      call: () => diffSnapshots(a, a, Number.NaN),
      message: /at must be a finite epoch-ms number/,
    },
  ])('refuses $name', ({ call, message }) => {
    expect(call).toThrow(RolloutInputError);
    expect(call).toThrow(message);
  });
});
