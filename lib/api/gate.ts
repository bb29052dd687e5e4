// The deploy gate for one balancer (by id or name), from its nodes' current verdicts; with `fresh`, after
// probing the balancer within a bounded wait, so the answer is not one interval old.
import type { Store } from '@/db/index';
import { getBalancer, getBalancerByName, readBalancerAnalysis, type Balancer } from '@/db/queries/balancers';
import { listNodes } from '@/db/queries/nodes';
import { NotFoundError } from '@/lib/errors';
import { judgeGate } from '@/lib/rollout/gate';
import { describeRegionSplit } from '@/lib/rollout/regions';
import type { StoredAnalysis } from '@/lib/schemas/dashboard';
import type { NodeObservation } from '@/lib/rollout/types';
import type { GateAnswer } from '@/lib/schemas/rollout';

export const DEFAULT_FRESH_WAIT_MS = 8_000;

/** How long `fresh=true` waits for its probe: under the 10 s that Argo Rollouts and Flagger wait by default. */
export function freshWaitMs(env: Record<string, string | undefined> = process.env): number {
  const raw = Number(env.ERAWATCH_GATE_FRESH_WAIT_MS);
  return Number.isInteger(raw) && raw >= 100 && raw <= 60_000 ? raw : DEFAULT_FRESH_WAIT_MS;
}

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

export async function gateForBalancer(
  store: Store,
  balancer: Pick<Balancer, 'id' | 'name'>,
  revision: string,
  now: number,
  fresh = false,
): Promise<GateAnswer> {
  const nodes = await listNodes(store, balancer.id);
  const unprobed = nodes.filter((n) => n.state === null).map((n) => n.id);
  // Across regions every region's verdict of a node counts, named `node@region` in the reasons.
  const observations: NodeObservation[] = nodes.flatMap((n) =>
    n.regions && n.regions.length > 1
      ? n.regions.map((r) => ({ nodeId: `${n.id}@${r.region}`, verdict: r.verdict, recentChanges: [] }))
      : n.state
        ? [{ nodeId: n.id, verdict: n.state.verdict, recentChanges: [] }]
        : [],
  );
  let judged = judgeGate(observations, unprobed, revision);
  // Regions that see different answers behind one public URL keep the gate shut, whatever each one says.
  const stored = (await readBalancerAnalysis(store, balancer.id))?.analysis as StoredAnalysis | undefined;
  if (stored?.regionSplit === true) {
    const why = `regions disagree: ${describeRegionSplit(stored.regionPartition ?? [], stored.partition)}`;
    judged = { state: 'closed', ready: false, reasons: [...judged.reasons, why] };
  }
  const probedAt = observations.map((o) => o.verdict.probedAt);
  return {
    balancerId: balancer.id,
    balancerName: balancer.name,
    revision,
    ready: judged.ready,
    state: judged.state,
    reasons: judged.reasons,
    observedAt: probedAt.length > 0 ? Math.min(...probedAt) : null,
    fresh,
    checkedAt: now,
  };
}

export interface AnswerGateOptions {
  fresh: boolean;
  /** Probes the balancer now and resolves when its cycle is stored. */
  probeNow: (balancerId: string) => Promise<unknown>;
  waitMs: number;
  clock?: () => number;
}

/**
 * The gate answer for `ref` (id or name). With `fresh`, the balancer is probed first; a probe that fails or
 * does not finish within `waitMs` makes the answer `cannot_judge` (the stored verdicts may be out of date),
 * while the probe itself runs on and stores its result.
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

  const outcome = await probeWithin(options.probeNow(balancer.id), options.waitMs);
  if (outcome.kind === 'done') return await gateForBalancer(store, balancer, revision, clock(), true);
  const stale = await gateForBalancer(store, balancer, revision, clock());
  const why =
    outcome.kind === 'timeout'
      ? `the fresh probe did not finish within ${options.waitMs} ms`
      : 'the fresh probe failed (the server log has the details)';
  return { ...stale, ready: false, state: 'cannot_judge', reasons: [why, ...stale.reasons] };
}

type ProbeOutcome = { kind: 'done' } | { kind: 'timeout' } | { kind: 'failed' };

function probeWithin(probe: Promise<unknown>, waitMs: number): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ kind: 'timeout' }), waitMs);
    probe.then(
      () => {
        clearTimeout(timer);
        resolve({ kind: 'done' });
      },
      (err: unknown) => {
        clearTimeout(timer);
        console.error('erawatch gate: fresh probe failed', err instanceof Error ? err.stack : err);
        resolve({ kind: 'failed' });
      },
    );
  });
}
