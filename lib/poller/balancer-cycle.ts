// One balancer cycle: plan the probes, run them under the global cap, analyse (this region's analysis, then
// combined with the other regions' inside the write), write one transaction. Clock, probe, resolver, variables
// and store are parameters; the analysis is lib/rollout's, never db/'s.
import type { StoredEvent } from '@/db/queries/events';
import { newId } from '@/db/ids';
import type { Store } from '@/db';
import type { ProbeTarget, Verdict } from '@/lib/probe/types';
import { DEFAULT_MODERN_VERSIONS } from '@/lib/probe/types';
import { analyzeCycle, DEFAULT_FLAP_WINDOW_MS, keyedFingerprintOf } from '@/lib/rollout';
import { carryCatalog, catalogOffsetOf, catalogRequestFor } from '@/lib/rollout/catalog';
import type { BalancerAnalysis, NodeObservation, SampleObservation } from '@/lib/rollout/types';
import type { Limiter } from './limiter';
import { combineStep } from './regions';
import { unavailableVerdict } from '@/lib/probe/types';
import { hostOf, nodeKey, planCycle, type PlannedNode } from './targets';
import type { Clock, ProbeFn, ResolveFn } from './types';
import type { Env } from '@/lib/settings';
import { listPollWorkers } from '@/db/queries/units';
import {
  readCycleInputs,
  analysisDigest,
  storeRegionAnalysis,
  writeProbes,
  type KnownNode,
  type NewNode,
  type NodeResult,
  type PriorState,
} from '@/db/queries/subjects';

export interface CycleDeps {
  probe: ProbeFn;
  resolve: ResolveFn;
  now: Clock;
  /** Where `env:NAME` header values and secrets are read from. */
  variables: Env;
  /** The global cap on probes in flight, shared by every balancer. */
  limiter: Limiter;
  /** When the cycle was due (for the lag figure); defaults to its start. */
  dueAt?: number;
  /** Called as each probe starts, with its lag behind the due time. */
  onProbeStart?: (lagMs: number) => void;
  /** Abandon: once aborted, no further probes start and nothing is written. */
  signal?: AbortSignal;
  /** Revisions the gate is evaluated for (defaults to the modern revisions we speak). */
  gateRevisions?: string[];
  /** Checked inside the result's write transaction: false (the unit was taken over) writes nothing. */
  fence?: Fence;
  /** The region this cycle probes from. */
  region: string;
}

/**
 * Answers, inside the open write transaction, whether this process may still write the unit's results. Asked
 * again with `extend` just before commit, where it may also extend the unit's lease.
 */
export type Fence = (extend?: boolean) => Promise<boolean>;

export interface CycleResult {
  balancerId: string;
  at: number;
  durationMs: number;
  probes: number;
  analysis: BalancerAnalysis;
  events: StoredEvent[];
}

/** A cycle's results were refused because another worker took its unit over while it ran. */
export class CycleFencedError extends Error {
  override readonly name = 'CycleFencedError';
  constructor(
    readonly subject: string,
    readonly at: number,
  ) {
    super(
      `the write of ${subject}'s cycle at ${new Date(at).toISOString()} was refused: its unit was taken over`,
    );
  }
}

/**
 * Runs `write` in one transaction after the fence, so a refused fence writes nothing at all. The fence is
 * asked again just before commit, extending the unit's lease from then: renewals pass by a row being written.
 */
export function fencedWrite<T>(
  store: Store,
  fence: Fence | undefined,
  subject: string,
  at: number,
  write: () => Promise<T>,
): Promise<T> {
  if (!fence) return store.write(() => write());
  return store.write(async () => {
    if (!(await fence())) throw new CycleFencedError(subject, at);
    const result = await write();
    if (!(await fence(true))) throw new CycleFencedError(subject, at);
    return result;
  });
}

export class CycleAbandonedError extends Error {
  override readonly name = 'CycleAbandonedError';
  constructor(balancerId: string) {
    super(`cycle of balancer '${balancerId}' abandoned`);
  }
}

function priorOf(n: KnownNode): PriorState | null {
  if (n.fingerprintKey === null) return null;
  return {
    fingerprintKey: n.fingerprintKey,
    verdictDigest: n.verdictDigest,
    lastAvailableKey: n.lastAvailableKey,
    fingerprintSince: n.fingerprintSince ?? n.lastSeenAt,
    probes: n.probes ?? 0,
    failures: n.failures ?? 0,
    consecutiveFailures: n.consecutiveFailures ?? 0,
    lastSeenAt: n.lastSeenAt,
    probedAt: n.probedAt,
  };
}

/** Host:port of a URL, as a proxy's served-by header would name it. */
function hostPortOf(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}

/** A sample's served-by value names a listed node (by URL or host:port), a DNS node (by address) or a new one. */
function attributionKey(servedBy: string, planned: readonly PlannedNode[]): string {
  for (const p of planned) {
    if (p.origin === 'listed' && (p.url === servedBy || hostPortOf(p.url) === servedBy)) return p.key;
    if (p.origin === 'dns' && p.address === servedBy) return p.key;
  }
  return nodeKey('sample', servedBy);
}

export async function runCycle(store: Store, balancerId: string, deps: CycleDeps): Promise<CycleResult> {
  const started = deps.now();
  const dueAt = deps.dueAt ?? started;
  const { region } = deps;
  // The cycle's one read: everything it needs before probing (the balancer, its nodes and their prior state,
  // the previous snapshot, recent changes, the open window, the live workers' regions).
  const inputs = await readCycleInputs(store, balancerId, region, started - DEFAULT_FLAP_WINDOW_MS);
  const { balancer, known, previous } = inputs;

  let addresses: string[] | null = null;
  let dnsProblem: string | null = null;
  if (balancer.resolveDns) {
    try {
      addresses = await deps.resolve(hostOf(balancer.publicUrl));
      if (addresses.length === 0) dnsProblem = 'dns_failed';
    } catch {
      dnsProblem = 'dns_failed';
    }
  }
  const plan = planCycle(balancer, addresses, deps.variables);
  // A failed lookup keeps the DNS nodes we knew, reported unavailable rather than silently dropped.
  if (dnsProblem) {
    for (const n of known.values()) {
      if (n.origin === 'dns' && n.address) {
        plan.nodes.push({
          key: n.key,
          origin: 'dns',
          url: balancer.publicUrl,
          address: n.address,
          target: { url: balancer.publicUrl },
        });
      }
    }
  }

  const probeOne = (target: ProbeTarget, skipReason: string | null): Promise<Verdict> =>
    deps.limiter.run(async () => {
      if (deps.signal?.aborted) throw new CycleAbandonedError(balancerId);
      const at = deps.now();
      deps.onProbeStart?.(at - dueAt);
      if (skipReason) return unavailableVerdict(target.url, skipReason, at, target.connectAddress ?? null);
      try {
        return await deps.probe(target, plan.options);
      } catch (err) {
        // The probe engine reports servers' faults in the verdict; a throw is ours, kept visible as a reason.
        const v = unavailableVerdict(target.url, 'probe_error', at, target.connectAddress ?? null);
        return { ...v, anomaly: err instanceof Error ? err.message : String(err) };
      }
    });

  // The catalog cadence and the last full catalog of each node live in the previous snapshot.
  const cadence = {
    enabled: balancer.catalog,
    every: balancer.catalogEvery,
    offset: catalogOffsetOf(balancer.id, balancer.catalogEvery),
  };
  const cycleNumber = (previous?.cycle ?? 0) + 1;
  const lastOf = new Map((previous?.nodes ?? []).map((n) => [n.nodeId, n]));
  const lastSnapshotOf = (key: string) => {
    const id = known.get(key)?.id;
    return id ? lastOf.get(id) : undefined;
  };
  const [rawNodeVerdicts, sampleVerdicts] = await Promise.all([
    Promise.all(
      plan.nodes.map((p) => {
        const catalog = catalogRequestFor(cadence, cycleNumber, lastSnapshotOf(p.key));
        return probeOne(
          catalog ? { ...p.target, catalog } : p.target,
          plan.headerProblem ?? (dnsProblem && p.origin === 'dns' ? dnsProblem : null),
        );
      }),
    ),
    Promise.all(plan.samples.map((t) => probeOne(t, plan.headerProblem))),
  ]);
  if (deps.signal?.aborted) throw new CycleAbandonedError(balancerId);
  const nodeVerdicts = rawNodeVerdicts.map((v, i) => {
    const p = plan.nodes[i];
    return p ? carryCatalog(v, lastSnapshotOf(p.key), cadence.enabled) : v;
  });

  const at = deps.now();
  const newNodes: NewNode[] = [];
  const idFor = (
    key: string,
    origin: NewNode['origin'],
    url: string,
    address: string | null,
    servedBy: string | null,
  ) => {
    const existing = known.get(key);
    if (existing) return existing.id;
    const pending = newNodes.find((n) => n.key === key);
    if (pending) return pending.id;
    const id = newId('nod');
    newNodes.push({ id, key, origin, url, address, servedBy });
    return id;
  };

  const results: NodeResult[] = [];
  const observations: NodeObservation[] = [];
  // Read with the inputs, from the flap window's start then; the window ends now (only this unit's holder
  // adds this region's changes, so none arrived while it probed).
  const windowStart = at - DEFAULT_FLAP_WINDOW_MS;
  const recent = new Map(
    [...inputs.recentChanges].map(([id, times]) => [id, times.filter((t) => t >= windowStart)] as const),
  );
  plan.nodes.forEach((p, i) => {
    const verdict = nodeVerdicts[i];
    if (!verdict) return;
    const nodeId = idFor(p.key, p.origin, p.url, p.address, null);
    const keyed = keyedFingerprintOf(verdict);
    const knownNode = known.get(p.key);
    const prior = knownNode ? priorOf(knownNode) : null;
    results.push({ nodeId, seq: knownNode?.seq ?? null, verdict, fingerprintKey: keyed?.key ?? null, prior });
    const changes = recent.get(nodeId) ?? [];
    const changedNow = keyed && prior?.lastAvailableKey && prior.lastAvailableKey !== keyed.key;
    observations.push({
      nodeId,
      verdict,
      recentChanges: changedNow ? [...changes, verdict.probedAt] : changes,
    });
  });

  const samples: SampleObservation[] = [];
  const sampleStates = new Map<string, NodeResult>();
  for (const verdict of sampleVerdicts) {
    if (!verdict.servedBy) {
      samples.push({ verdict, nodeId: null });
      continue;
    }
    const key = attributionKey(verdict.servedBy, plan.nodes);
    const nodeId = idFor(key, 'sample', balancer.publicUrl, null, verdict.servedBy);
    samples.push({ verdict, nodeId });
    if (key.startsWith('sample:')) {
      const knownNode = known.get(key);
      // A sample-only node's state is its latest attributed sample of the cycle.
      sampleStates.set(nodeId, {
        nodeId,
        seq: knownNode?.seq ?? null,
        verdict,
        fingerprintKey: keyedFingerprintOf(verdict)?.key ?? null,
        prior: knownNode ? priorOf(knownNode) : null,
      });
    }
  }
  results.push(...sampleStates.values());

  const open = inputs.openWindow;
  const analysis = analyzeCycle({
    balancerId,
    at,
    nodes: observations,
    samples,
    window: open
      ? { id: open.id, target: open.target, openedAt: open.openedAt, deadline: open.deadline }
      : null,
    gateRevisions: deps.gateRevisions ?? [...DEFAULT_MODERN_VERSIONS],
    previous,
  });
  if (deps.signal?.aborted) throw new CycleAbandonedError(balancerId);
  // The regions that must have a result: the balancer's own list, else every region with a live poll worker.
  // Read inside the write (after probing, as the combination needs it): a worker of another region that
  // started while this cycle probed counts.
  const expectedRegions = async () =>
    balancer.regions ?? [...new Set([region, ...(await listPollWorkers(store, at)).map((w) => w.region)])];
  let combined = analysis;
  // One write: this region's analysis beside the others', their combination and its events, all in the one
  // transaction that the fence guards (two regions finishing at once each see the other's row).
  const events = await fencedWrite(store, deps.fence, `balancer ${balancerId}`, at, async () => {
    const { others, previousCombined, previousCombinedDigest } = await storeRegionAnalysis(
      store,
      { balancerId, region, at, analysis },
      inputs.previousDigest,
    );
    const step = combineStep({
      balancerId,
      at,
      intervalMs: balancer.intervalMs,
      mine: { region, analysis },
      stored: others,
      expectedRegions: await expectedRegions(),
      previous: previousCombined,
    });
    combined = step.combined;
    const digest = analysisDigest(step.combined);
    return writeProbes(store, {
      kind: 'node',
      region,
      balancerId,
      at,
      newNodes,
      results,
      analysis: step.combined,
      analysisDigest: digest,
      analysisUnchanged: digest === previousCombinedDigest,
      events: step.events,
    });
  });
  return {
    balancerId,
    at,
    durationMs: deps.now() - started,
    probes: nodeVerdicts.length + sampleVerdicts.length,
    analysis: combined,
    events,
  };
}
