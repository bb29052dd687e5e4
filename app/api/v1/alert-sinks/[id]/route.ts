import { deleteAlertSink, getAlertSink, getAlertSinkRow } from '@/db/queries/alert-sinks';
import { updateAlertSinkSettings } from '@/lib/alertmanager/sinks';
import { assertAlertSinkUrlsAllowed } from '@/lib/api/alert-sink-input';
import { audited } from '@/lib/api/audit';
import { route } from '@/lib/api/route';
import { json, noContent } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const GET = route('getAlertSink', async ({ store, params }) =>
  json(await getAlertSink(store, params.id)),
);

export const PATCH = route('updateAlertSink', async (ctx) => {
  const { store, params, now, settings } = ctx;
  const body = await ctx.rawBody();
  const patch = await ctx.body();
  assertAlertSinkUrlsAllowed(patch.urls, settings);
  const updated = await audited(
    ctx,
    { operation: 'alert_sink.update', subjectType: 'alert_sink' },
    async () => {
      // The credential as stored (the view says only "stored"): the audit redacts it, and sees it change.
      const credentials = async () => ({ auth: (await getAlertSinkRow(store, params.id)).alertmanager.auth });
      const before = { ...(await getAlertSink(store, params.id)), ...(await credentials()) };
      const after = await updateAlertSinkSettings(store, params.id, body, now);
      return {
        subject: { id: after.id, name: after.name },
        before,
        after: { ...after, ...(await credentials()) },
        result: after,
      };
    },
  );
  return json(updated);
});

export const DELETE = route('deleteAlertSink', async (ctx) => {
  const { store, params } = ctx;
  await audited(ctx, { operation: 'alert_sink.delete', subjectType: 'alert_sink' }, async () => {
    const before = await getAlertSink(store, params.id);
    await deleteAlertSink(store, params.id);
    return { subject: { id: before.id, name: before.name }, before, after: null, result: null };
  });
  return noContent();
});
