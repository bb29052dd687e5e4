import { createAlertSink, listAlertSinks } from '@/db/queries/alert-sinks';
import { assertAlertSinkUrlsAllowed } from '@/lib/api/alert-sink-input';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const GET = route('listAlertSinks', async ({ store }) => json({ items: await listAlertSinks(store) }));

export const POST = route('createAlertSink', async ({ store, now, settings, body }) => {
  const input = await body();
  assertAlertSinkUrlsAllowed(input.urls, settings);
  const created = await createAlertSink(store, input, now);
  return json(created, 201, { location: `/api/v1/alert-sinks/${created.id}` });
});
