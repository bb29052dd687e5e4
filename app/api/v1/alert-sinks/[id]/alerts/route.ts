import { getAlertSink, readSinkAlerts } from '@/db/queries/alert-sinks';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

/** What the sink's next push sends: firing alerts, then those resolved in the last 15 minutes. */
export const GET = route('listSinkAlerts', async ({ store, params }) => {
  await getAlertSink(store, params.id);
  const items = (await readSinkAlerts(store, params.id)).map(({ generatorUrl: _g, ...a }) => a);
  return json({ items });
});
