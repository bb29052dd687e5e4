// A balancer's history per step (state, severity, era counts, nodes serving the target, availability), read
// from the minute and hourly rollups and the fingerprint spans.
import { planHistory, readBalancerHistory } from '@/db/queries/history';
import { route } from '@/lib/api/route';
import { asQueryErrors, json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const GET = route('getBalancerHistory', async ({ store, params, query, now }) => {
  const plan = await asQueryErrors(async () =>
    planHistory({ from: query.from, to: query.to, stepMs: query.step }, now),
  );
  return json(await readBalancerHistory(store, params.id, plan, now));
});
