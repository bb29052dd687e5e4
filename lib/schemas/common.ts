// Shapes shared by several resources: ids, pagination, timestamps. Client-safe.
import { z } from 'zod';
import { probeDeadlineMs } from '@/lib/probe/types';

export const Id = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'must be an id');

/** C0 control characters (NUL among them), DEL and C1: no typed field holds them, and PostgreSQL refuses NUL. */
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;
/** The same, but tab and line breaks, which a multi-line description may hold. */
const CONTROL_CHARACTERS_BUT_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** The refinement of every free-text field (names, descriptions, user names, credentials): 422 on both engines. */
export function withoutControlCharacters<S extends z.ZodString>(schema: S, opts: { lines?: boolean } = {}) {
  const pattern = opts.lines ? CONTROL_CHARACTERS_BUT_LINES : CONTROL_CHARACTERS;
  return schema.refine((v) => !pattern.test(v), 'must not contain control characters');
}

/** Epoch milliseconds. */
export const Timestamp = z.int().min(0).meta({ description: 'epoch milliseconds' });

export const Limit = z.coerce
  .number()
  .int('must be an integer')
  .min(1, 'must be at least 1')
  .max(500, 'must be at most 500')
  .default(50);

/** Opaque cursor: pass `nextCursor` of one page to get the next. */
export const Cursor = z
  .string()
  .max(200)
  .regex(/^[A-Za-z0-9_-]+$/, 'is not a cursor returned by this API');

export const PageQuery = z.object({ limit: Limit, cursor: Cursor.optional() });

export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), nextCursor: z.string().nullable() });
}

/** A flexible time bound in a query string: epoch ms or an ISO 8601 date-time. */
export const TimeBound = z.union([
  z
    .string()
    .regex(/^\d{1,15}$/)
    .transform(Number),
  z.iso
    .datetime({ offset: true, error: 'must be epoch ms or an ISO 8601 date-time' })
    .transform((s) => Date.parse(s)),
]);

/** A probe's timings: its whole deadline must end before the next probe is due. */
interface ProbeTimings {
  timeoutMs: number;
  legacyProbeTimeoutMs: number;
  intervalMs: number;
}

/** The refinement balancers and stdio targets share: `.refine(deadlineFits, deadlineIssue)`. */
export const deadlineFits = (t: ProbeTimings) => probeDeadlineMs(t) < t.intervalMs;

/** Its issue, on `timeoutMs`, naming the values that break it. */
export const deadlineIssue = {
  path: ['timeoutMs'],
  error: (issue: { input: unknown }) => {
    const t = issue.input as ProbeTimings;
    return `the probe deadline (2 × timeoutMs + legacyProbeTimeoutMs = ${probeDeadlineMs(t)} ms) must stay below intervalMs (${t.intervalMs} ms)`;
  },
};
