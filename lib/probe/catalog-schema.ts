// The tool catalog a probe lists, as a zod schema: the verdict's (lib/schemas/verdict.ts) and the balancer
// snapshot's (lib/rollout/analysis.ts) catalog field. Client-safe.
import { z } from 'zod';
import { CATALOG_STATUSES } from './types';

export const ToolCatalog = z
  .object({
    status: z.enum(CATALOG_STATUSES).meta({
      description: 'listed: complete this probe; carried: kept from an earlier one; failed: never listed',
    }),
    names: z.array(z.string()).meta({ description: 'tool names, sorted' }),
    toolDigests: z
      .array(z.string())
      .meta({ description: 'per tool, in names order, a digest of its definition' }),
    digest: z.string().nullable(),
    ttlMs: z.number().nullable(),
    cacheScope: z.string().nullable(),
    pages: z.int(),
    listedAt: z.int().min(0).meta({ description: 'epoch milliseconds' }),
    settledKey: z.string(),
    reason: z.string().optional(),
  })
  .meta({ id: 'ToolCatalog' });
