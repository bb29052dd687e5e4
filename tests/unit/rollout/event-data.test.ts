// Each event type's `data` has its own schema in the API's contract (lib/schemas/event.ts, one OpenAPI
// component each). The events the analysis emits match their type's schema exactly: no field missing, none
// undocumented. A change to what an event carries must change its schema (and CHANGELOG.md) too.
import { describe, expect, it } from 'vitest';
import {
  analyzeCycle,
  diffSnapshots,
  type BalancerSnapshot,
  type CycleInput,
  type EventDraft,
} from '@/lib/rollout';
import { EVENT_DATA, eventDataName } from '@/lib/schemas/event';
import { buildOpenApiDocument } from '@/lib/api/openapi';
import { EVENT_TYPES } from '@/lib/rollout/types';
import { T0, cycleInput, legacyVerdict, modernVerdict, node, unavailableVerdict } from './verdict-factory';

const MIN = 60_000;

function runCycles(steps: Array<Partial<CycleInput>>): EventDraft[] {
  let prev: BalancerSnapshot | null = null;
  const out: EventDraft[] = [];
  steps.forEach((step, i) => {
    const at = T0 + i * MIN;
    const next = analyzeCycle(cycleInput({ ...step, at, previous: prev })).snapshot;
    out.push(...diffSnapshots(prev, next, at));
    prev = next;
  });
  return out;
}

const up = (id: string) => node(id, modernVerdict());
const old = (id: string) => node(id, legacyVerdict());
const down = (id: string, reason = 'timeout') => node(id, unavailableVerdict(reason));
const flappy = (id: string) => node(id, modernVerdict(), [T0 - 1, T0 - 2, T0 - 3, T0 - 4]);

describe('event data against its schema', () => {
  const events = [
    ...runCycles([
      { nodes: [up('a'), up('b')] },
      { nodes: [up('a'), old('b')] },
      { nodes: [up('a'), up('b')] },
    ]),
    ...runCycles([{ nodes: [up('a')] }, { nodes: [down('a')] }, { nodes: [up('a')] }]),
    ...runCycles([
      { nodes: [up('a')] },
      { nodes: [down('a', 'auth_required')] },
      { nodes: [down('a', 'timeout')] },
    ]),
    ...runCycles([{ nodes: [up('a')] }, { nodes: [flappy('a')] }]),
  ];

  it('covers most event types', () => {
    const seen = new Set(events.map((e) => e.type));
    for (const type of [
      'balancer.diverged',
      'balancer.converged',
      'node.era_changed',
      'node.unavailable',
      'node.auth_gated',
      'node.recovered',
    ] as const)
      expect(seen).toContain(type);
  });

  it('every emitted event parses with its type schema, strictly', () => {
    for (const e of events) {
      const parsed = EVENT_DATA[e.type].strict().safeParse(e.data);
      expect(parsed.success ? [] : parsed.error.issues, `${e.type} ${JSON.stringify(e.data)}`).toEqual([]);
    }
    const moved = events.find((e) => e.type === 'node.unavailable' && 'from' in e.data);
    expect(moved?.data).toEqual({ reason: 'timeout', from: 'auth-gated' });
  });

  it('the OpenAPI document has one data schema per event type, referenced by the Event schema', () => {
    const doc = buildOpenApiDocument('test') as {
      components: { schemas: Record<string, { oneOf?: Array<{ properties: { data: { $ref: string } } }> }> };
    };
    const names = EVENT_TYPES.map(eventDataName);
    expect(new Set(names).size).toBe(EVENT_TYPES.length);
    for (const name of names) expect(doc.components.schemas[name], name).toBeDefined();
    const refs = doc.components.schemas.Event?.oneOf?.map((o) => o.properties.data.$ref);
    expect(refs).toEqual(names.map((n) => `#/components/schemas/${n}`));
  });
});
