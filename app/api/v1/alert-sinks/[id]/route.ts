import { deleteAlertSink, getAlertSink, updateAlertSink } from '@/db/queries/alert-sinks';
import { assertAlertSinkUrlsAllowed } from '@/lib/api/alert-sink-input';
import { json, noContent, parseBody, readJsonBody, withApi } from '@/lib/api/with-api';
import { UpdateAlertSinkInput } from '@/lib/schemas/alert-sink';

export const dynamic = 'force-dynamic';

export const GET = withApi<{ id: string }>('read', async ({ store, params }) =>
  json(await getAlertSink(store, params.id)),
);

export const PATCH = withApi<{ id: string }>('write', async ({ req, store, params, now, settings }) => {
  const body = await readJsonBody(req);
  const patch = parseBody(UpdateAlertSinkInput, body);
  assertAlertSinkUrlsAllowed(patch.urls, settings);
  return json(await updateAlertSink(store, params.id, body as Record<string, unknown>, now));
});

export const DELETE = withApi<{ id: string }>('write', async ({ store, params }) => {
  await deleteAlertSink(store, params.id);
  return noContent();
});
