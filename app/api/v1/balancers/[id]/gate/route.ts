import { answerGate } from '@/lib/api/gate';
import { askForCycles } from '@/lib/api/probe-now';
import { json, readQuery, withApi } from '@/lib/api/with-api';
import { GateQuery } from '@/lib/schemas/rollout';

export const dynamic = 'force-dynamic';

/**
 * A deploy pipeline asks this before it advertises a revision; `{id}` is the balancer id or its name.
 * Every judged case is 200 with JSON (Argo Rollouts' web provider counts any non-2xx as an Error).
 */
export const GET = withApi<{ id: string }>('read', async ({ req, store, params, settings }) => {
  const { revision, fresh } = readQuery(req, GateQuery);
  const answer = await answerGate(store, params.id, revision, {
    fresh,
    ask: (id) => askForCycles(store, id, settings, settings.gateFreshWaitMs),
  });
  return json(answer);
});
