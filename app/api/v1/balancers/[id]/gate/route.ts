import { gateForBalancer } from '@/lib/api/gate';
import { json, readQuery, withApi } from '@/lib/api/with-api';
import { GateQuery } from '@/lib/schemas/rollout';

export const dynamic = 'force-dynamic';

/** A deploy pipeline asks this before it advertises a revision. */
export const GET = withApi<{ id: string }>('read', ({ req, store, params, now }) => {
  const { revision } = readQuery(req, GateQuery);
  return json(gateForBalancer(store, params.id, revision, now));
});
