// Shapes shared by several resources: ids, pagination, timestamps. Client-safe.
import { z } from 'zod';
import { ValidationError, toFieldIssues } from '@/lib/errors';
import { probeDeadlineMs } from '@/lib/probe/types';

export const Id = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'must be an id');

/**
 * Whether `v` holds a C0 control character (NUL among them), DEL or a C1 one: no typed field holds them, and
 * PostgreSQL refuses NUL. `allow` names the few a field may hold (tab and line breaks in a description).
 */
export function hasControlCharacters(v: string, allow: readonly string[] = []): boolean {
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if ((c < 0x20 || (c >= 0x7f && c <= 0x9f)) && !allow.includes(v[i] ?? '')) return true;
  }
  return false;
}

export const CONTROL_CHARACTERS_ISSUE = 'must not contain control characters';

/** The refinement of every free-text field (names, descriptions, user names, credentials): 422 on both engines. */
export function withoutControlCharacters<S extends z.ZodString>(schema: S, opts: { lines?: boolean } = {}) {
  const allow = opts.lines ? ['\t', '\n', '\r'] : [];
  return schema.refine((v) => !hasControlCharacters(v, allow), CONTROL_CHARACTERS_ISSUE);
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

/** `input` parsed with `schema`, or a ValidationError naming every problem. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new ValidationError(toFieldIssues(parsed.error.issues));
  return parsed.data;
}

/** A partial update as sent, parsed with `schema`: only the keys the caller sent are kept, since zod fills in
 *  defaults inside partial(). A ValidationError names every problem. */
export function parsePatch<S extends z.ZodType<object>>(schema: S, patch: unknown): Partial<z.output<S>> {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch))
    throw new ValidationError([{ path: '', message: 'must be an object' }]);
  const sent = new Set(Object.keys(patch));
  const fields: Partial<z.output<S>> = {};
  for (const [key, value] of Object.entries(parseInput(schema, patch)))
    if (sent.has(key)) Object.assign(fields, { [key]: value });
  return fields;
}
