import { createAlertSink, listAlertSinks } from '@/db/queries/alert-sinks';
import { assertAlertSinkUrlsAllowed } from '@/lib/api/alert-sink-input';
import { json, readJson, withApi } from '@/lib/api/with-api';
import { CreateAlertSinkInput } from '@/lib/schemas/alert-sink';

export const dynamic = 'force-dynamic';

export const GET = withApi('read', async ({ store }) => json({ items: await listAlertSinks(store) }));

export const POST = withApi('write', async ({ req, store, now, settings }) => {
  const input = await readJson(req, CreateAlertSinkInput);
  assertAlertSinkUrlsAllowed(input.urls, settings);
  const created = await createAlertSink(store, input, now);
  return json(created, 201, { location: `/api/v1/alert-sinks/${created.id}` });
});
