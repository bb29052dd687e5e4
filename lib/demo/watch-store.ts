// Echoes what the poller records for the demo balancers (new events, flag changes) on the console, so a
// newcomer sees the rollout move in the terminal as well as on the dashboard.
import type { Store } from '@/db';
import { listBalancers } from '@/db/queries/balancers';
import { listEvents, type StoredEvent } from '@/db/queries/events';

export interface StoreWatcher {
  /** Reads what is new since the last call and reports it; returns the lines it printed. */
  poll(): Promise<string[]>;
}

/** Watches the balancers with the given ids; events already stored when it starts are not repeated. */
export async function watchStore(
  store: Store,
  balancerNames: ReadonlyMap<string, string>,
): Promise<StoreWatcher> {
  let lastSeq = (await listEvents(store, { limit: 1 })).items[0]?.seq ?? 0;
  const flags = new Map<string, string>();

  function describeEvent(e: StoredEvent): string {
    const name = balancerNames.get(e.balancerId) ?? e.balancerId;
    const data = JSON.stringify(e.data);
    const detail = data === '{}' ? '' : ` ${data.length > 160 ? `${data.slice(0, 157)}...` : data}`;
    return `[event] ${new Date(e.at).toISOString().slice(11, 19)} ${name} ${e.type}${detail}`;
  }

  return {
    async poll() {
      const lines: string[] = [];
      const fresh = (await listEvents(store, { since: 0, limit: 200 })).items
        .filter((e) => e.seq > lastSeq && balancerNames.has(e.balancerId))
        .sort((a, b) => a.seq - b.seq);
      for (const e of fresh) lines.push(describeEvent(e));
      const newest = (await listEvents(store, { limit: 1 })).items[0];
      if (newest) lastSeq = Math.max(lastSeq, newest.seq);

      for (const b of (await listBalancers(store, { limit: 500 })).items) {
        if (!balancerNames.has(b.id) || !b.summary) continue;
        const s = b.summary;
        const flag = `${s.status}${s.severity ? ` (${s.severity})` : ''}${s.degraded ? ', degraded' : ''}`;
        if (flags.get(b.id) !== flag) {
          flags.set(b.id, flag);
          lines.push(`[state] ${b.name}: ${flag}`);
        }
      }
      return lines;
    },
  };
}
