// Event contract as the API serves it, with one schema of `data` per event type (what lib/rollout/events.ts
// emits; a webhook's envelope carries the same `data` with the balancer's and the node's ids). Client-safe.
import { z } from 'zod';
import { SERVED_ERAS } from '@/lib/probe/types';
import { EVENT_TYPES, SEVERITIES, type EventType as EventTypeName } from '@/lib/rollout/types';
import { SEVERITY_LEVELS } from '@/lib/rollout/severity';
import { Cursor, Id, Limit, TimeBound, Timestamp } from './common';
import { AvailableEra, RegionGroup } from '@/lib/rollout/analysis';

export const EventType = z.enum(EVENT_TYPES, { error: `must be one of: ${EVENT_TYPES.join(', ')}` });

export const EventQuery = z.object({
  balancerId: Id.optional(),
  nodeId: Id.optional().describe("Only this node's events"),
  type: EventType.optional(),
  since: TimeBound.optional(),
  until: TimeBound.optional(),
  limit: Limit,
  cursor: Cursor.optional(),
});

/** Node events found by a worker in a named region say which. */
const region = z
  .string()
  .optional()
  .meta({ description: 'the region whose probe found it (named regions only)' });
/** Every event about a node names it, as the dashboard does. */
const nodeName = z.string().optional().meta({
  description:
    "the node's display name (configured, attribution header, served-by or reverse DNS), else how the dashboard labels it (its URL, or address and URL); absent on events stored before names",
});
const servedEra = z.object({ era: AvailableEra.nullable(), servedEras: z.enum(SERVED_ERAS).nullable() });
const down = {
  reason: z
    .string()
    .nullable()
    .meta({ description: 'why the node did not answer, e.g. timeout or auth_required' }),
  from: z
    .enum(['unavailable', 'auth-gated'])
    .optional()
    .meta({ description: 'set when the node moved between down and refused at the door' }),
  region,
  nodeName,
};

/** What `data` holds, per event type. */
export const EVENT_DATA = {
  'balancer.diverged': z.object({
    severity: z.enum(SEVERITIES).nullable(),
    from: z.enum(['uniform', 'non-uniform']).nullable().meta({ description: 'the settled state before' }),
    rolling: z.boolean().meta({ description: 'inside an open rollout window' }),
    windowId: z.string().nullable(),
  }),
  'balancer.converged': z.object({ fromSeverity: z.enum(SEVERITIES).nullable() }),
  'balancer.region_split': z.object({ regions: z.array(RegionGroup) }),
  'balancer.region_converged': z.object({ regions: z.array(RegionGroup), from: z.array(RegionGroup) }),
  'node.unavailable': z.object(down),
  'node.auth_gated': z.object(down),
  'node.recovered': z.object({
    era: AvailableEra.nullable(),
    servedEras: z.enum(SERVED_ERAS).nullable(),
    downReason: z.string().nullable(),
    region,
    nodeName,
  }),
  'node.era_changed': z.object({ from: servedEra, to: servedEra, region, nodeName }),
  'node.catalog_changed': z.object({
    added: z.array(z.string()),
    removed: z.array(z.string()),
    changed: z.array(z.string()).meta({ description: 'tools whose description or input schema changed' }),
    from: z.string().meta({ description: 'the catalog digest before' }),
    to: z.string(),
    region,
    nodeName,
  }),
  'node.flapping': z.object({ region, nodeName }),
  'rollout.stuck': z.object({
    windowId: z.string(),
    progress: z.string().nullable(),
    deadline: Timestamp.nullable(),
  }),
  'gate.opened': z.object({ revision: z.string() }),
  'gate.closed': z.object({ revision: z.string(), reasons: z.array(z.string()) }),
  'balancer.severity_changed': z.object({
    from: z.enum(SEVERITY_LEVELS).meta({ description: 'the severity level before the change' }),
    to: z.enum(SEVERITY_LEVELS).meta({ description: 'the severity level after it' }),
    windowId: z
      .string()
      .nullable()
      .meta({ description: "the balancer's open rollout window at the change, if any" }),
  }),
} satisfies Record<EventTypeName, z.ZodObject>;

/** `node.auth_gated` → `NodeAuthGatedData`: the schema's name in the OpenAPI document. */
export function eventDataName(type: EventTypeName): string {
  return `${type
    .split(/[._]/)
    .map((w) => `${w[0]?.toUpperCase() ?? ''}${w.slice(1)}`)
    .join('')}Data`;
}

const EventFields = {
  id: z.string(),
  balancerId: z.string(),
  nodeId: z.string().nullable(),
  at: Timestamp,
};

/** One stored event as the code handles it: `data` by its type (see EVENT_DATA). */
export const EventRecord = z.object({
  ...EventFields,
  type: z.enum(EVENT_TYPES),
  data: z.record(z.string(), z.unknown()),
});
export type Event = z.infer<typeof EventRecord>;

/** The API's event: one shape per type, so each type's `data` is documented. */
export const Event = z
  .discriminatedUnion(
    'type',
    EVENT_TYPES.map((type) =>
      z.object({
        ...EventFields,
        type: z.literal(type),
        data: EVENT_DATA[type].meta({ id: eventDataName(type) }),
      }),
    ) as unknown as readonly [z.ZodObject, ...z.ZodObject[]],
  )
  .meta({ id: 'Event' });
