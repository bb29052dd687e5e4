import { deleteAlertSink, getAlertSink, updateAlertSink } from '@/db/queries/alert-sinks';
import { assertAlertSinkUrlsAllowed } from '@/lib/api/alert-sink-input';
import { audited } from '@/lib/api/audit';
import { json, noContent, parseBody, readJsonBody, withApi } from '@/lib/api/with-api';
import { UpdateAlertSinkInput } from '@/lib/schemas/alert-sink';

export const dynamic = 'force-dynamic';

export const GET = withApi<{ id: string }>('read', async ({ store, params }) =>
  json(await getAlertSink(store, params.id)),
);

export const PATCH = withApi<{ id: string }>('write', async (ctx) => {
  const { req, store, params, now, settings } = ctx;
  const body = await readJsonBody(req);
  const patch = parseBody(UpdateAlertSinkInput, body);
  assertAlertSinkUrlsAllowed(patch.urls, settings);
  const updated = await audited(
    ctx,
    { operation: 'alert_sink.update', subjectType: 'alert_sink' },
    async () => {
      const before = await getAlertSink(store, params.id);
      const after = await updateAlertSink(store, params.id, body as Record<string, unknown>, now);
      return { subject: { id: after.id, name: after.name }, before, after, result: after };
    },
  );
  return json(updated);
});

export const DELETE = withApi<{ id: string }>('write', async (ctx) => {
  const { store, params } = ctx;
  await audited(ctx, { operation: 'alert_sink.delete', subjectType: 'alert_sink' }, async () => {
    const before = await getAlertSink(store, params.id);
    await deleteAlertSink(store, params.id);
    return { subject: { id: before.id, name: before.name }, before, after: null, result: null };
  });
  return noContent();
});
