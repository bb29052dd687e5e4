import { answerGate } from '@/lib/api/gate';
import { askForCycles } from '@/lib/api/probe-now';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

/**
 * A deploy pipeline asks this before it advertises a revision; `{id}` is the balancer id or its name.
 * Every judged case is 200 with JSON (Argo Rollouts' web provider counts any non-2xx as an Error).
 */
export const GET = route('getGate', async ({ store, params, settings, query }) => {
  const answer = await answerGate(store, params.id, query.revision, {
    fresh: query.fresh,
    ask: (id) => askForCycles(store, id, settings, settings.gateFreshWaitMs),
  });
  return json(answer);
});
