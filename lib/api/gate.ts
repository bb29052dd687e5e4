// The deploy gate for one balancer, from its nodes' current verdicts.
import type { Store } from '@/db/index';
import { listNodes } from '@/db/queries/nodes';
import { evaluateGate } from '@/lib/rollout/gate';
import type { NodeObservation } from '@/lib/rollout/types';
import type { GateAnswer } from '@/lib/schemas/rollout';

export function gateForBalancer(store: Store, balancerId: string, revision: string, now: number): GateAnswer {
  const nodes = listNodes(store, balancerId);
  const unprobed = nodes.filter((n) => n.state === null).map((n) => n.id);
  const observations: NodeObservation[] = nodes.flatMap((n) =>
    n.state ? [{ nodeId: n.id, verdict: n.state.verdict, recentChanges: [] }] : [],
  );
  const result =
    observations.length > 0
      ? evaluateGate(observations, revision)
      : { ready: false, reasons: ['no probed nodes yet'] };
  const reasons = [...result.reasons];
  if (unprobed.length > 0 && observations.length > 0) reasons.push(`not probed yet: ${unprobed.join(', ')}`);
  return { balancerId, revision, ready: result.ready && unprobed.length === 0, reasons, checkedAt: now };
}
