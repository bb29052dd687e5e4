// The deploy gate for one balancer (by id or name), from its nodes' current verdicts; with `fresh`, after a
// cycle asked of every region that probes it, within a bounded wait, so the answer is not one interval old.
import type { Store } from '@/db/index';
import { getBalancer, getBalancerByName, readBalancerAnalysis, type Balancer } from '@/db/queries/balancers';
import { listNodes, type NodeWithState } from '@/db/queries/nodes';
import { NotFoundError } from '@/lib/errors';
import { catalogDriftOf, judgeGate } from '@/lib/rollout/gate';
import { describeRegionSplit } from '@/lib/rollout/regions';
import type { NodeObservation } from '@/lib/rollout/types';
import type { GateAnswer } from '@/lib/schemas/rollout';
import { describeOutcome, type CycleRequestOutcome } from '@/lib/poller/requests';

/**
 * A balancer by id, else by name (a pipeline knows the name); an id wins over an equal name. A path segment
 * may arrive still percent-encoded, so the decoded form is tried too.
 */
export async function resolveBalancer(store: Store, ref: string): Promise<Balancer> {
  const candidates = [...new Set([ref, safeDecode(ref)])];
  for (const lookup of [getBalancer, getBalancerByName]) {
    for (const candidate of candidates) {
      try {
        return await lookup(store, candidate);
      } catch (err) {
        if (!(err instanceof NotFoundError)) throw err;
      }
    }
  }
  throw new NotFoundError('balancer', ref);
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** A node's display name, where the store has one (nodes gain names with their own column). */
function nameOf(n: NodeWithState): string | null {
  return (n as NodeWithState & { name?: string | null }).name ?? null;
}

/** What the gate judges: each node's latest verdict, or across regions every region's, named `name@region`. */
function observationsOf(nodes: NodeWithState[]): NodeObservation[] {
  return nodes.flatMap((n) => {
    const label = nameOf(n) ?? n.url;
    if (n.regions && n.regions.length > 1)
      return n.regions.map((r) => ({
        nodeId: `${n.id}@${r.region}`,
        name: `${label}@${r.region}`,
        verdict: r.verdict,
        recentChanges: [],
      }));
    return n.state ? [{ nodeId: n.id, name: nameOf(n), verdict: n.state.verdict, recentChanges: [] }] : [];
  });
}

export async function gateForBalancer(
  store: Store,
  balancer: Pick<Balancer, 'id' | 'name'>,
  revision: string,
  now: number,
  fresh = false,
): Promise<GateAnswer> {
  const nodes = await listNodes(store, balancer.id);
  const unprobed = nodes.filter((n) => n.state === null).map((n) => nameOf(n) ?? n.url);
  const observations = observationsOf(nodes);
  let judged = judgeGate(observations, unprobed, revision);
  // Regions that see different answers behind one public URL keep the gate shut, whatever each one says.
  const stored = await readBalancerAnalysis(store, balancer.id);
  if (stored?.regionSplit === true) {
    const why = `regions disagree: ${describeRegionSplit(stored.regionPartition, stored.partition)}`;
    judged = {
      state: 'closed',
      ready: false,
      reasons: [...judged.reasons, why],
      details: [...judged.details, { text: why, nodes: null }],
    };
  }
  const probedAt = observations.map((o) => o.verdict.probedAt);
  return {
    balancerId: balancer.id,
    balancerName: balancer.name,
    revision,
    ready: judged.ready,
    state: judged.state,
    reasons: judged.reasons,
    details: judged.details,
    catalogDrift: stored ? catalogDriftOf(stored.partition) : null,
    observedAt: probedAt.length > 0 ? Math.min(...probedAt) : null,
    fresh,
    checkedAt: now,
  };
}

export interface AnswerGateOptions {
  fresh: boolean;
  /** Asks the balancer's regions for a cycle now and resolves with their answer (within its own wait). */
  ask: (balancerId: string) => Promise<CycleRequestOutcome>;
  clock?: () => number;
}

/**
 * The gate answer for `ref` (id or name). With `fresh`, every region that must probe the balancer is asked for
 * a cycle first; a region with no live poll worker, a cycle that stored nothing or one that did not finish in
 * time makes the answer `cannot_judge` (the stored verdicts may be out of date), naming the region.
 */
export async function answerGate(
  store: Store,
  ref: string,
  revision: string,
  options: AnswerGateOptions,
): Promise<GateAnswer> {
  const clock = options.clock ?? Date.now;
  const balancer = await resolveBalancer(store, ref);
  if (!options.fresh) return await gateForBalancer(store, balancer, revision, clock());

  const outcome = await options.ask(balancer.id);
  if (outcome.kind === 'answered' && outcome.failed.length === 0)
    return await gateForBalancer(store, balancer, revision, clock(), true);
  const stale = await gateForBalancer(store, balancer, revision, clock());
  const why =
    outcome.kind === 'answered'
      ? `the fresh probe of region ${outcome.failed.join(', ')} stored nothing (its worker's log has the details)`
      : describeOutcome(outcome);
  return {
    ...stale,
    ready: false,
    state: 'cannot_judge',
    reasons: [why, ...stale.reasons],
    details: [{ text: why, nodes: null }, ...stale.details],
  };
}
