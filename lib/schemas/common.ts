// Shapes shared by several resources: ids, pagination, timestamps. Client-safe.
import { z } from 'zod';

export const Id = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'must be an id');

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
