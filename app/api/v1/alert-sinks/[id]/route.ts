import { deleteAlertSink, getAlertSink, updateAlertSink } from '@/db/queries/alert-sinks';
import { assertAlertSinkUrlsAllowed } from '@/lib/api/alert-sink-input';
import { route } from '@/lib/api/route';
import { json, noContent } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const GET = route('getAlertSink', async ({ store, params }) =>
  json(await getAlertSink(store, params.id)),
);

export const PATCH = route('updateAlertSink', async ({ store, params, now, settings, body, rawBody }) => {
  const patch = await body();
  assertAlertSinkUrlsAllowed(patch.urls, settings);
  return json(await updateAlertSink(store, params.id, (await rawBody()) as Record<string, unknown>, now));
});

export const DELETE = route('deleteAlertSink', async ({ store, params }) => {
  await deleteAlertSink(store, params.id);
  return noContent();
});
