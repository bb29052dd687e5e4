// Rollout window and gate contracts. Client-safe.
import { z } from 'zod';
import { SERVED_ERAS } from '@/lib/probe/types';
import { GATE_STATES } from '@/lib/rollout/gate';
import { Timestamp } from './common';
import { NodeFilter } from './node-filter';

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
    target: RolloutTargetSchema,
    deadline: Timestamp,
    openedAt: Timestamp,
    closedAt: Timestamp.nullable(),
  })
  .meta({ id: 'RolloutWindow' });
export type RolloutWindow = z.output<typeof RolloutWindow>;

const booleanFlag = z
  .enum(['true', 'false'], { error: 'must be true or false' })
  .optional()
  .transform((v) => v === 'true');

export const GateQuery = z.object({
  revision,
  fresh: booleanFlag.meta({
    description: 'probe the balancer first (bounded by ERAWATCH_GATE_FRESH_WAIT_MS) so the answer is current',
  }),
});

export const GateAnswer = z
  .object({
    balancerId: z.string(),
    balancerName: z.string(),
    revision: z.string(),
    /** The one field a pipeline reads: true only when the state is `open`. */
    ready: z.boolean(),
    state: z.enum(GATE_STATES).meta({
      description:
        'open: ready; closed: the readable nodes rule it out; cannot_judge: auth-gated, unprobed or unfinished fresh probe',
    }),
    reasons: z.array(z.string()).meta({ description: 'why it is not open, for people (details[].text)' }),
    details: z
      .array(
        z.object({
          text: z.string().meta({ description: 'the reason, as in reasons' }),
          nodes: z
            .object({
              count: z.int().min(0),
              filter: NodeFilter.meta({
                description: 'the filter of GET /balancers/{id}/nodes that lists the nodes it names',
              }),
            })
            .nullable()
            .meta({ description: 'the nodes the reason names; null when it names none a filter can select' }),
        }),
      )
      .meta({
        description: 'each reason, in order, with how many nodes it names and the filter that lists them',
      }),
    catalogDrift: z
      .object({
        tools: z
          .array(z.string())
          .meta({ description: 'every tool some nodes add, lack or define differently, sorted' }),
        detail: z.string(),
      })
      .nullable()
      .meta({
        description:
          'the nodes present different tool catalogs (drift) while their served revisions agree: the gate still opens on the revision, and says which tools differ; null when the catalogs agree or were not listed',
      }),
    /** The oldest verdict the answer used (epoch ms); null when no node has been probed. */
    observedAt: Timestamp.nullable(),
    /** True when the balancer was probed for this answer (`fresh=true` and the probe finished in time). */
    fresh: z.boolean(),
    checkedAt: Timestamp,
  })
  .meta({ id: 'GateAnswer' });
export type GateAnswer = z.output<typeof GateAnswer>;

/** What Flagger posts to a webhook; `metadata` is the webhook's own string map from the Canary spec. */
export const FlaggerHookInput = z
  .object({
    name: z.string().min(1, 'is required'),
    namespace: z.string().min(1, 'is required'),
    phase: z.string().optional(),
    checksum: z.string().optional(),
    metadata: z.object(
      {
        balancer: z.string().min(1, 'is required: the balancer name or id'),
        revision,
        /** Checked by the handler (401 when missing): Flagger's webhook spec has no headers field. */
        token: z.string().optional(),
        fresh: booleanFlag,
      },
      { error: 'is required: { balancer, revision, token }' },
    ),
  })
  .meta({ id: 'FlaggerHook' });
export type FlaggerHookInput = z.input<typeof FlaggerHookInput>;

export const FlaggerHookAnswer = z
  .object({
    canary: z.object({
      name: z.string(),
      namespace: z.string(),
      phase: z.string().nullable(),
      checksum: z.string().nullable(),
    }),
    /** `promote` (gate hook, gate open) or `rollback` (rollback hook, gate not open). */
    action: z.enum(['promote', 'rollback']),
    gate: GateAnswer,
  })
  .meta({ id: 'FlaggerHookAnswer' });
export type FlaggerHookAnswer = z.output<typeof FlaggerHookAnswer>;
