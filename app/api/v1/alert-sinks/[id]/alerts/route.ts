import { getAlertSink, readSinkAlerts } from '@/db/queries/alert-sinks';
import { json, withApi } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

/** What the sink's next push sends: firing alerts, then those resolved in the last 15 minutes. */
export const GET = withApi<{ id: string }>('read', async ({ store, params }) => {
  await getAlertSink(store, params.id);
  const items = (await readSinkAlerts(store, params.id)).map(({ generatorUrl: _g, ...a }) => a);
  return json({ items });
});
