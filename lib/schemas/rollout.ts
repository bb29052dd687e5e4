// Rollout window and gate contracts. Client-safe.
import { z } from 'zod';
import { SERVED_ERAS } from '@/lib/probe/types';
import { Timestamp } from './common';

const revision = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a revision date like 2026-07-28');

export const RolloutTargetSchema = z
  .strictObject({
    era: z.enum(['modern', 'legacy'], { error: 'must be modern or legacy' }).optional(),
    negotiatedVersion: revision.optional(),
    servedEras: z.enum(SERVED_ERAS, { error: `must be one of ${SERVED_ERAS.join(', ')}` }).optional(),
    supportedIncludes: revision.optional(),
    fingerprintKey: z.string().min(1).max(500).optional(),
  })
  .refine((t) => Object.values(t).some((v) => v !== undefined), {
    message:
      'must name at least one of era, negotiatedVersion, servedEras, supportedIncludes, fingerprintKey',
  })
  .meta({ id: 'RolloutTarget', description: 'every field given must match the nodes' });

export const OpenRolloutInput = z
  .strictObject({
    target: RolloutTargetSchema,
    deadline: z.union([
      Timestamp,
      z.iso
        .datetime({ offset: true, error: 'must be epoch ms or an ISO 8601 date-time' })
        .transform((s) => Date.parse(s)),
    ]),
  })
  .meta({ id: 'OpenRollout' });
export type OpenRolloutInput = z.input<typeof OpenRolloutInput>;

export const RolloutWindow = z
  .object({
    id: z.string(),
    balancerId: z.string(),
    target: z.record(z.string(), z.string()),
    deadline: Timestamp,
    openedAt: Timestamp,
    closedAt: Timestamp.nullable(),
  })
  .meta({ id: 'RolloutWindow' });

export const GateQuery = z.object({ revision });

export const GateAnswer = z
  .object({
    balancerId: z.string(),
    revision: z.string(),
    ready: z.boolean(),
    reasons: z.array(z.string()),
    checkedAt: Timestamp,
  })
  .meta({ id: 'GateAnswer' });
export type GateAnswer = z.infer<typeof GateAnswer>;
