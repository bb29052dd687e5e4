// A balancer's progress toward one served set, as the API serves it (lib/rollout/progress.ts). Client-safe.
import { z } from 'zod';
import { Timestamp } from './common';

export const BalancerProgressView = z
  .object({
    basis: z.enum(['window', 'largest-group']).meta({
      description:
        "window: toward the open rollout window's target; largest-group: no declared target, the share of available nodes in the largest fingerprint group",
    }),
    targetLabel: z.string().meta({ description: 'e.g. "modern · modern-only", or "largest group"' }),
    onTarget: z.int().min(0).meta({ description: 'available nodes presenting the target fingerprint' }),
    available: z.int().min(0).meta({ description: 'available nodes' }),
    share: z.number().min(0).max(1),
    complete: z.boolean().meta({
      description:
        'every available node presents one fingerprint (the target, with a window); never true while served sets differ',
    }),
    targetRevision: z
      .string()
      .nullable()
      .meta({ description: 'the protocol revision the target stands for' }),
    servingTargetRevision: z
      .int()
      .min(0)
      .meta({ description: 'available nodes that serve the target revision at all' }),
    change10m: z
      .int()
      .nullable()
      .meta({ description: 'change of onTarget over the last 10 minutes; null without history' }),
    change1h: z
      .int()
      .nullable()
      .meta({ description: 'change of onTarget over the last hour; null without history' }),
    trend: z.enum(['up', 'down', 'flat', 'unknown']),
    etaAt: Timestamp.nullable().meta({
      description: 'inside an open window: when it reaches uniform at the current rate; null without a rate',
    }),
    stalled: z.boolean().meta({ description: 'inside an open window, no node moved for 5 poll cycles' }),
    lastMoveAt: Timestamp.nullable().meta({
      description: 'when a node last moved onto or off the target (last hour)',
    }),
    offerWindow: z
      .boolean()
      .meta({ description: 'no window and not uniform: opening one declares the target' }),
  })
  .meta({ id: 'BalancerProgress' });
export type BalancerProgressView = z.output<typeof BalancerProgressView>;
