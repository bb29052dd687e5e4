// The outbox plan is pure: which endpoints get an event, whether an open rollout window holds it, and the
// envelope each delivery carries.
import { describe, expect, it } from 'vitest';
import { holdingInterest, planDeliveries, type PlanEndpoint } from '@/lib/deliver/plan';
import type { EnvelopeEvent } from '@/lib/schemas/webhook-envelope';

const endpoint = (id: string, over: Partial<PlanEndpoint> = {}): PlanEndpoint => ({
  id,
  kind: 'webhook',
  enabled: true,
  eventTypes: [],
  balancerIds: [],
  ...over,
});

const event = (id: string, type: string, balancerId: string | null, at = 1_000): EnvelopeEvent => ({
  id,
  type,
  balancerId,
  nodeId: null,
  at,
  data: { reason: 'x' },
});

describe('planDeliveries', () => {
  it('one delivery per interested enabled webhook endpoint; alert sinks and disabled endpoints get none', () => {
    const rows = planDeliveries(
      [event('evt_1', 'node.unavailable', 'bal_a')],
      [
        endpoint('whk_all'),
        endpoint('whk_off', { enabled: false }),
        endpoint('snk_1', { kind: 'alertmanager' }),
        endpoint('whk_type', { eventTypes: ['balancer.diverged'] }),
        endpoint('whk_bal', { balancerIds: ['bal_a'] }),
        endpoint('whk_other', { balancerIds: ['bal_b'] }),
      ],
      new Map(),
    );
    expect(rows.map((r) => r.endpointId)).toEqual(['whk_all', 'whk_bal']);
    expect(rows.every((r) => r.heldBy === null && r.createdAt === 1_000)).toBe(true);
  });

  it('carries the envelope, once serialised and shared by the event’s deliveries', () => {
    const rows = planDeliveries(
      [event('evt_1', 'node.unavailable', 'bal_a')],
      [endpoint('a'), endpoint('b')],
      new Map(),
      5_000,
    );
    expect(rows[0]?.payload).toBe(rows[1]?.payload);
    const envelope = JSON.parse(rows[0]?.payload ?? '') as Record<string, unknown>;
    expect(envelope).toMatchObject({
      id: 'evt_1',
      type: 'node.unavailable',
      data: { balancerId: 'bal_a', reason: 'x' },
    });
    expect(rows.map((r) => r.createdAt)).toEqual([5_000, 5_000]);
  });

  it('an alert inside its balancer’s open window is held by it; other types and other balancers are not', () => {
    const windows = new Map([['bal_a', { id: 'rw_1', deadline: 2_000 }]]);
    const rows = planDeliveries(
      [
        event('evt_1', 'balancer.diverged', 'bal_a'),
        event('evt_2', 'node.unavailable', 'bal_a'),
        event('evt_3', 'balancer.diverged', 'bal_b'),
        event('evt_4', 'balancer.diverged', 'bal_a', 3_000),
      ],
      [endpoint('whk_1')],
      windows,
    );
    expect(rows.map((r) => [r.eventId, r.heldBy])).toEqual([
      ['evt_1', 'rw_1'],
      ['evt_2', null],
      ['evt_3', null],
      ['evt_4', null],
    ]);
  });

  it('no endpoints, no events: nothing', () => {
    expect(planDeliveries([event('e', 'node.unavailable', 'b')], [], new Map())).toEqual([]);
    expect(planDeliveries([], [endpoint('a')], new Map())).toEqual([]);
  });
});

describe('holdingInterest', () => {
  it('names the balancers with an event a window may hold, once each', () => {
    expect(
      holdingInterest([
        event('1', 'balancer.diverged', 'bal_a'),
        event('2', 'node.era_changed', 'bal_a'),
        event('3', 'node.unavailable', 'bal_b'),
        event('4', 'balancer.diverged', null),
      ]),
    ).toEqual(['bal_a']);
  });
});
