// The dashboard's read model: the store's rows shaped into exactly what the screens draw, so the overview of
// 1,000 balancers costs one query. The public REST API stays the contract for integrations.
import type { Store } from '@/db/index';
import { readDivergedSince, readFleetSources, readNodeIdentities } from '@/db/queries/dashboard';
import { readFleetProgress } from '@/db/queries/progress';
import { sortFleet, toFleetRow, type FleetRow } from '@/lib/ui/fleet';
import { nodeLabels } from '@/lib/schemas/node-label';

/** Every balancer as an overview row, non-uniform first, with when its divergence began. */
export async function readFleetRows(store: Store, now = Date.now()): Promise<FleetRow[]> {
  const sources = await readFleetSources(store);
  const progress = await readFleetProgress(store, sources, now);
  const fleet = sources.map((s) => ({ ...toFleetRow(s), progressMeasure: progress.get(s.id) ?? null }));
  const since = await readDivergedSince(
    store,
    fleet.filter((r) => r.nonUniform).map((r) => r.id),
  );
  for (const r of fleet) if (r.nonUniform) r.nonUniformSince = since[r.id] ?? null;
  return sortFleet(fleet);
}

/** How operators know each of these nodes (URL, address or attribution), for lists that carry node ids. */
export async function readNodeLabels(store: Store, ids: readonly string[]): Promise<Record<string, string>> {
  return nodeLabels(await readNodeIdentities(store, ids));
}
