// Event contract as the API serves it. Client-safe.
import { z } from 'zod';
import { EVENT_TYPES } from '@/lib/rollout/types';
import { Cursor, Id, Limit, TimeBound, Timestamp } from './common';

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

export const Event = z
  .object({
    id: z.string(),
    balancerId: z.string(),
    nodeId: z.string().nullable(),
    type: z.enum(EVENT_TYPES),
    at: Timestamp,
    data: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'Event' });
export type Event = z.infer<typeof Event>;
