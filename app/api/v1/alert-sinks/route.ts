import { createAlertSink } from '@/lib/alertmanager/sinks';
import { assertAlertSinkUrlsAllowed } from '@/lib/api/alert-sink-input';
import { audited } from '@/lib/api/audit';
import { readRoute } from '@/lib/api/reads';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const GET = readRoute('listAlertSinks');

export const POST = route('createAlertSink', async (ctx) => {
  const { store, now, settings } = ctx;
  const input = await ctx.body();
  assertAlertSinkUrlsAllowed(input.urls, settings);
  const created = await audited(
    ctx,
    { operation: 'alert_sink.create', subjectType: 'alert_sink' },
    async () => {
      const made = await createAlertSink(store, input, now);
      return { subject: { id: made.id, name: made.name }, before: null, after: made, result: made };
    },
  );
  return json(created, 201, { location: `/api/v1/alert-sinks/${created.id}` });
});
