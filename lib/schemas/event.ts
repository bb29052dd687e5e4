// Event contract as the API serves it. Client-safe.
import { z } from 'zod';
import { SEVERITY_LEVELS } from '@/lib/rollout/severity';
import { EVENT_TYPES } from '@/lib/rollout/types';
import { Cursor, Id, Limit, TimeBound, Timestamp } from './common';

export const EventType = z.enum(EVENT_TYPES, { error: `must be one of: ${EVENT_TYPES.join(', ')}` });

export const EventQuery = z.object({
  balancerId: Id.optional(),
  type: EventType.optional(),
  since: TimeBound.optional(),
  until: TimeBound.optional(),
  limit: Limit,
  cursor: Cursor.optional(),
});

/** The data of a `balancer.severity_changed` event. */
export const SeverityChangedData = z
  .looseObject({
    from: z.enum(SEVERITY_LEVELS).meta({ description: 'the severity level before the change' }),
    to: z.enum(SEVERITY_LEVELS).meta({ description: 'the severity level after it' }),
    windowId: z
      .string()
      .nullable()
      .meta({ description: "the balancer's open rollout window at the change, if any" }),
  })
  .meta({
    id: 'SeverityChangedData',
    description:
      'balancer.severity_changed: the level moved (era-split, drift, region-split, flapping, degraded, uniform); moves into and out of divergence are balancer.diverged and balancer.converged',
  });

export const Event = z
  .object({
    id: z.string(),
    balancerId: z.string(),
    nodeId: z.string().nullable(),
    type: z.enum(EVENT_TYPES),
    at: Timestamp,
    data: z
      .union([SeverityChangedData, z.record(z.string(), z.unknown())])
      .meta({ description: "the event's details; their shape depends on `type`" }),
  })
  .meta({ id: 'Event' });
export type Event = z.infer<typeof Event>;
