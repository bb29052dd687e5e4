// A balancer's history as the API serves it: one entry per step of a time range, read from the rollups and
// the fingerprint spans the poller already keeps. Client-safe.
import { z } from 'zod';
import { Timestamp } from './common';

/** At most this many steps per answer. */
export const MAX_HISTORY_STEPS = 1_000;

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A step: milliseconds (`300000`) or a duration (`30s`, `5m`, `1h`, `1d`). */
export const HistoryStep = z
  .string()
  .regex(/^(\d{1,12}|\d{1,6}[smhd])$/, 'must be milliseconds or a duration such as 1m, 5m, 1h or 1d')
  .transform((s) => {
    const unit = s.at(-1) as string;
    return unit in UNIT_MS ? Number(s.slice(0, -1)) * UNIT_MS[unit as keyof typeof UNIT_MS] : Number(s);
  });

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** A time: epoch milliseconds or an ISO 8601 date-time with its offset. */
export const HistoryTime = z.string().transform((s, ctx) => {
  if (/^\d{1,15}$/.test(s)) return Number(s);
  const at = ISO_DATE_TIME.test(s) ? Date.parse(s) : Number.NaN;
  if (Number.isNaN(at)) {
    ctx.addIssue({
      code: 'custom',
      message: 'must be epoch ms or an ISO 8601 date-time (2026-12-06T08:00:00Z)',
    });
    return z.NEVER;
  }
  return at;
});

export const HistoryQuery = z.object({
  from: HistoryTime.optional(),
  to: HistoryTime.optional(),
  step: HistoryStep.optional(),
});

/** The band the dashboard draws per step: the analysis' severity first, then availability. */
export const HISTORY_BANDS = ['era-split', 'drift', 'degraded', 'uniform', 'no-data'] as const;
export type HistoryBand = (typeof HISTORY_BANDS)[number];

export const HistoryStepEntry = z
  .object({
    at: Timestamp.describe('Start of the step (epoch ms); the step covers [at, at + stepMs).'),
    state: z
      .enum(['uniform', 'non-uniform', 'unknown'])
      .describe('From the fingerprints the probed nodes presented at the end of the step'),
    severity: z.enum(['era-split', 'drift']).nullable(),
    band: z.enum(HISTORY_BANDS),
    nodes: z.number().int().describe('Nodes probed in the step'),
    available: z.number().int(),
    unavailable: z.number().int(),
    authGated: z.number().int(),
    eras: z
      .object({
        modern: z.number().int(),
        dualEra: z.number().int().describe('Available nodes serving both eras (their own series)'),
        legacy: z.number().int(),
      })
      .describe('Available nodes per client era at the end of the step'),
    fingerprints: z.number().int().describe('Distinct fingerprints among the available nodes'),
    windowOpen: z.boolean().describe('A rollout window was open at the end of the step'),
    targetRevision: z
      .string()
      .nullable()
      .describe("The open window's target revision, else the newest revision any available node served"),
    servingTarget: z.number().int().describe('Available nodes serving the target revision'),
    probes: z.number().int(),
    failures: z.number().int(),
  })
  .meta({ id: 'BalancerHistoryStep' });
export type HistoryStepEntry = z.infer<typeof HistoryStepEntry>;

export const BalancerHistory = z
  .object({
    balancerId: z.string(),
    from: Timestamp.describe('The first step’s start (the asked `from`, aligned down to a whole step)'),
    to: Timestamp.describe('The end of the range (the asked `to`, or now when later or unset)'),
    stepMs: z.number().int(),
    source: z
      .enum(['minutes', 'hours'])
      .describe('minutes: the minute rollups (last six hours); hours: the hourly rollups'),
    steps: z.array(HistoryStepEntry),
  })
  .meta({ id: 'BalancerHistory' });
export type BalancerHistory = z.infer<typeof BalancerHistory>;
