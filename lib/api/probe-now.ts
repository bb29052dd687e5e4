// Probe-now, shared by POST /balancers/{id}/probe and the gate's fresh=true: one cycle of the balancer in
// this process, waiting for one already running, with every probe counted in /metrics.
import type { Store } from '@/db/index';
import { instrumentProbe } from '@/lib/metrics/probe';
import { runBalancerCycle, type CycleResult } from '@/lib/poller';
import { createDefaultProbe } from '@/lib/poller/probe';

export function probeBalancerNow(store: Store, balancerId: string): Promise<CycleResult> {
  return runBalancerCycle(store, balancerId, {
    probe: instrumentProbe(createDefaultProbe(process.env)),
  });
}
