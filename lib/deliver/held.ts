// Alerts held during a rollout window, settled by the outbox worker as lib/rollout's rule says: dropped when
// the window closed in time, released for delivery (beside rollout.stuck) once it overran or is gone.
import type { Store } from '@/db/index';
import { listHeldDeliveries, releaseHeldDeliveries, suppressHeldDeliveries } from '@/db/queries/webhooks';
import { settleHeldAlert } from '@/lib/rollout/window';

export async function settleHeldDeliveries(
  store: Store,
  now: number,
): Promise<{ released: number; suppressed: number }> {
  return store.write(async () => {
    const release: string[] = [];
    const suppress: string[] = [];
    for (const h of await listHeldDeliveries(store)) {
      const fate = settleHeldAlert(h, now);
      if (fate === 'release') release.push(h.id);
      else if (fate === 'suppress') suppress.push(h.id);
    }
    await releaseHeldDeliveries(store, release, now);
    await suppressHeldDeliveries(store, suppress, now, 'held during a rollout window that closed in time');
    return { released: release.length, suppressed: suppress.length };
  });
}
