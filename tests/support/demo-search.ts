// The demo's search balancer on a test's store: the demo fleet started, only `demo-search` registered, with
// deadlines a loaded machine always meets (the era walk is under test, not the demo's timeouts) and an
// interval long enough that only the test's own cycles run.
import type { Store } from '@/db';
import { DEMO_BALANCERS, startDemoFleet, type DemoFleet } from '@/lib/demo/fleet';
import { registerDemoBalancers } from '@/lib/demo/register';

export async function startDemoSearch(store: Store): Promise<{ fleet: DemoFleet; searchId: string }> {
  const fleet = await startDemoFleet();
  try {
    const wide = { intervalMs: 120_000, timeoutMs: 30_000, legacyProbeTimeoutMs: 30_000 };
    const search = fleet.balancers
      .filter((b) => b.name === DEMO_BALANCERS.rollout)
      .map((b) => ({ ...b, ...wide }));
    const [registered] = await registerDemoBalancers(store, search);
    if (!registered) throw new Error('the demo has no search balancer');
    return { fleet, searchId: registered.balancer.id };
  } catch (err) {
    await fleet.stop();
    throw err;
  }
}
