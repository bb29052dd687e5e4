// Probe-now, shared by POST /balancers/{id}/probe and the gate's fresh=true: one cycle of the balancer under
// its claim in the store (waiting for a cycle running in any process), with every probe counted in the
// stored series /metrics renders.
import type { Store } from '@/db/index';
import { instrumentProbe } from '@/lib/metrics/probe';
import { flushStoredMetrics } from '@/lib/metrics/stored';
import { runBalancerCycle, type CycleResult } from '@/lib/poller';
import { createDefaultProbe } from '@/lib/poller/probe';

export async function probeBalancerNow(store: Store, balancerId: string): Promise<CycleResult> {
  const result = await runBalancerCycle(store, balancerId, {
    probe: instrumentProbe(createDefaultProbe(process.env)),
  });
  try {
    await flushStoredMetrics(store);
  } catch {
    // A worker's flusher in this process writes the series on its next round.
  }
  return result;
}
