// The filter part of a balancer's node query (the whole query, and what answers it, is ./node-query.ts): apart,
// so the gate's contract (./rollout.ts) can name it without importing the dashboard's row shapes. Client-safe.
import { z } from 'zod';
import { AVAILABILITIES, CLIENT_ERAS, SERVED_ERAS } from '@/lib/probe/types';
import { REGION_PATTERN, REGION_RULE } from '@/lib/region';
import { CONTROL_CHARACTERS_ISSUE, hasControlCharacters } from './common';

export const NODE_SORTS = [
  'name',
  'url',
  'clientEra',
  'served',
  'group',
  'region',
  'probedAt',
  'latency',
] as const;
export type NodeSort = (typeof NODE_SORTS)[number];

export const NODE_ORDERS = ['asc', 'desc'] as const;

export const oneOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of: ${values.join(', ')}` });

/** The filter part of a node query: what a gate reason or a fingerprint group links to. */
export const NodeFilter = z
  .object({
    q: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(200, 'must be at most 200 characters')
      .refine((v) => !hasControlCharacters(v), CONTROL_CHARACTERS_ISSUE)
      .optional()
      .meta({ description: 'case-insensitive substring of the node’s name, URL or address' }),
    group: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,100}$/, 'must be a fingerprint key like fp_3f1c0a9b52e4d670')
      .optional()
      .meta({ description: 'the fingerprint key of a partition group: its nodes' }),
    clientEra: oneOf(CLIENT_ERAS).optional().meta({ description: 'the client verdict' }),
    served: oneOf(SERVED_ERAS).optional().meta({ description: 'the served class' }),
    region: z
      .string()
      .regex(REGION_PATTERN, `must be a region name: ${REGION_RULE}`)
      .optional()
      .meta({ description: 'the region whose probe the row shows' }),
    lacks: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a revision date like 2026-07-28')
      .optional()
      .meta({ description: 'available nodes whose served set does not include this revision' }),
    availability: oneOf(AVAILABILITIES).optional(),
  })
  .meta({ id: 'NodeFilter' });
export type NodeFilter = z.output<typeof NodeFilter>;
