// Runs the production delivery pass (lib/deliver/loop.ts `deliveryPass`) once and waits for the lanes it
// started, so a test sees every attempt the pass made recorded. An attempt that could not be recorded fails
// the call, as it would be logged by the worker.
import type { Store } from '@/db/index';
import type { DeliveryDeps } from '@/lib/deliver/deps';
import { deliveryPass } from '@/lib/deliver/loop';

export interface PassSummary {
  attempted: number;
  succeeded: number;
  released: number;
  suppressed: number;
}

export async function deliverDue(store: Store, deps: DeliveryDeps): Promise<PassSummary> {
  const pass = await deliveryPass(store, deps);
  const results = (await Promise.all(pass.lanes.values())).flat();
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  const succeeded = results.filter((r) => r.status === 'fulfilled' && r.value.outcome === 'ok').length;
  return { attempted: pass.claimed, succeeded, released: pass.released, suppressed: pass.suppressed };
}
