// Labels (URL or attribution) for the node ids a list shows, e.g. the event log (auth as for API reads).
import { z } from 'zod';
import { json, readQuery, withApi } from '@/lib/api/with-api';
import { readNodeLabels } from '@/lib/api/read-model';

export const dynamic = 'force-dynamic';

const LabelsQuery = z.object({
  ids: z
    .string()
    .max(20_000)
    .transform((s) => s.split(',').filter((id) => id !== ''))
    .pipe(z.array(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be node ids')).max(500, 'at most 500 ids')),
});

export const GET = withApi('read', async ({ req, store }) =>
  json({ labels: await readNodeLabels(store, readQuery(req, LabelsQuery).ids) }),
);
