// One balancer cycle, in four named steps: plan the probes (planProbes), run them under the global cap
// (probeAll), turn the verdicts into node results and this region's analysis (observe), and write once,
// combining with the other regions' analyses inside the transaction (writeCycle). Clock, probe, resolver,
// variables and store are parameters; the analysis and its digest are lib/rollout's, never db/'s.
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
import { hostOf, nodeKey, planCycle, type CyclePlan, type PlannedNode } from './targets';
import type { Clock, ProbeFn, ResolveFn, ReverseFn } from './types';
import { nodeNameOf, remoteName } from './node-names';
import { nodeLabel } from '@/lib/schemas/node-label';
import type { NodeIdentity } from '@/lib/schemas/balancer-view';
import type { EventDraft } from '@/lib/rollout/types';
import type { Env } from '@/lib/settings';
import { listPollWorkers } from '@/db/queries/units';
import {
  readCycleInputs,
  storeRegionAnalysis,
  writeProbes,
  type CycleInputs,
  type KnownNode,
  type NewNode,
  type NodeResult,
  type PriorState,
} from '@/db/queries/subjects';
import { analysisDigest } from '@/lib/rollout/digest';

export interface CycleDeps {
  probe: ProbeFn;
  resolve: ResolveFn;
  /** The reverse-DNS name of a DNS node's address (bounded and cached); without it DNS nodes get none. */
  reverse?: ReverseFn;
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

/** The plan step's answer: what to probe, and why some probes are skipped. */
interface PlannedCycle extends CyclePlan {
  /** Set when the DNS lookup failed: the DNS nodes known before are probed as unavailable with this reason. */
  dnsProblem: string | null;
}

/** The probe step's answer: one verdict per planned node (in plan order) and one per sample. */
interface ProbedCycle {
  nodeVerdicts: Verdict[];
  sampleVerdicts: Verdict[];
  /** The reverse-DNS names of the DNS nodes' addresses, looked up while they were probed. */
  reverseNames: Map<string, string | null>;
}

/** The observe step's answer: what the write stores and what the analysis saw. */
interface ObservedCycle {
  newNodes: NewNode[];
  /** Known nodes whose name changed this cycle. */
  renamed: Array<{ nodeId: string; name: string | null }>;
  results: NodeResult[];
  analysis: BalancerAnalysis;
  /** How each node of the cycle is known (its name, else its URL or address), by id: events carry it. */
  labels: Map<string, string>;
}

export async function runCycle(store: Store, balancerId: string, deps: CycleDeps): Promise<CycleResult> {
  const started = deps.now();
  // The cycle's one read: everything it needs before probing (the balancer, its nodes and their prior state,
  // the previous snapshot, recent changes, the open window).
  const inputs = await readCycleInputs(store, balancerId, deps.region, started - DEFAULT_FLAP_WINDOW_MS);
  const plan = await planProbes(inputs, deps);
  const reverseNames = lookUpReverseNames(plan, deps.reverse);
  const probed = {
    ...(await probeAll(inputs, plan, deps, deps.dueAt ?? started)),
    reverseNames: await reverseNames,
  };
  const at = deps.now();
  const observed = observe(inputs, plan, probed, at, deps);
  if (deps.signal?.aborted) throw new CycleAbandonedError(balancerId);
  const { analysis, events } = await writeCycle(store, inputs, observed, at, deps);
  return {
    balancerId,
    at,
    durationMs: deps.now() - started,
    probes: probed.nodeVerdicts.length + probed.sampleVerdicts.length,
    analysis,
    events,
  };
}

/**
 * Plan: the listed nodes, one per DNS address of the public host, and the samples. A failed lookup keeps the
 * DNS nodes we knew, reported unavailable rather than silently dropped.
 */
async function planProbes(inputs: CycleInputs, deps: CycleDeps): Promise<PlannedCycle> {
  const { balancer, known } = inputs;
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
  return { ...plan, dnsProblem };
}

/** The DNS nodes' reverse names, looked up at once (each lookup is bounded in time and cached). */
async function lookUpReverseNames(
  plan: PlannedCycle,
  reverse: ReverseFn | undefined,
): Promise<Map<string, string | null>> {
  const addresses = [
    ...new Set(plan.nodes.flatMap((p) => (p.origin === 'dns' && p.address ? [p.address] : []))),
  ];
  if (!reverse || addresses.length === 0) return new Map();
  const names = await Promise.all(addresses.map((a) => reverse(a).catch(() => null)));
  return new Map(addresses.map((a, i) => [a, names[i] ?? null]));
}

/** The catalog cadence, and each known node's entry in the previous snapshot (its last full catalog). */
function catalogContext(inputs: CycleInputs) {
  const { balancer, known, previous } = inputs;
  const cadence = {
    enabled: balancer.catalog,
    every: balancer.catalogEvery,
    offset: catalogOffsetOf(balancer.id, balancer.catalogEvery),
  };
  const lastOf = new Map((previous?.nodes ?? []).map((n) => [n.nodeId, n]));
  const lastSnapshotOf = (key: string) => {
    const id = known.get(key)?.id;
    return id ? lastOf.get(id) : undefined;
  };
  return { cadence, cycleNumber: (previous?.cycle ?? 0) + 1, lastSnapshotOf };
}

/** Probe: every planned node and sample under the global cap; a node's catalog is listed on its cadence. */
async function probeAll(
  inputs: CycleInputs,
  plan: PlannedCycle,
  deps: CycleDeps,
  dueAt: number,
): Promise<Omit<ProbedCycle, 'reverseNames'>> {
  const balancerId = inputs.balancer.id;
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
  const { cadence, cycleNumber, lastSnapshotOf } = catalogContext(inputs);
  const [rawNodeVerdicts, sampleVerdicts] = await Promise.all([
    Promise.all(
      plan.nodes.map((p) => {
        const catalog = catalogRequestFor(cadence, cycleNumber, lastSnapshotOf(p.key));
        return probeOne(
          catalog ? { ...p.target, catalog } : p.target,
          plan.headerProblem ?? (plan.dnsProblem && p.origin === 'dns' ? plan.dnsProblem : null),
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
  return { nodeVerdicts, sampleVerdicts };
}

/** Node ids for the cycle's keys: a known node's own, else a new node minted once per key. */
function nodeIds(known: ReadonlyMap<string, KnownNode>) {
  const newNodes: NewNode[] = [];
  const idFor = (key: string, node: Omit<NewNode, 'id' | 'key'>): string => {
    const existing = known.get(key);
    if (existing) return existing.id;
    const pending = newNodes.find((n) => n.key === key);
    if (pending) return pending.id;
    const id = newId('nod');
    newNodes.push({ id, key, ...node });
    return id;
  };
  return { newNodes, idFor };
}

function resultOf(nodeId: string, knownNode: KnownNode | undefined, verdict: Verdict): NodeResult {
  return {
    nodeId,
    seq: knownNode?.seq ?? null,
    verdict,
    fingerprintKey: keyedFingerprintOf(verdict)?.key ?? null,
    prior: knownNode ? priorOf(knownNode) : null,
  };
}

/** How a known node is labelled without this cycle's facts: from its key, origin, address and stored name. */
function knownIdentity(k: KnownNode, publicUrl: string): NodeIdentity {
  const value = k.key.slice(k.key.indexOf(':') + 1);
  const origin = k.origin === 'listed' || k.origin === 'dns' ? k.origin : 'sample';
  return {
    origin,
    url: origin === 'listed' ? value : publicUrl,
    address: k.address,
    servedBy: origin === 'sample' ? value : null,
    name: k.name ?? null,
  };
}

/**
 * The cycle's names: each node named once (the first time the cycle names it), a known node whose name
 * changed listed for the write, and every node's label (known nodes' first, then this cycle's) for its events.
 */
function nodeNamer(inputs: CycleInputs) {
  const { known, balancer } = inputs;
  const renamed: ObservedCycle['renamed'] = [];
  const labels = new Map(
    [...known.values()].map((k) => [k.id, nodeLabel(knownIdentity(k, balancer.publicUrl))]),
  );
  const named = new Set<string>();
  const note = (nodeId: string, key: string, identity: NodeIdentity) => {
    if (named.has(nodeId)) return;
    named.add(nodeId);
    const before = known.get(key);
    if (before && before.id === nodeId && (before.name ?? null) !== identity.name)
      renamed.push({ nodeId, name: identity.name });
    labels.set(nodeId, nodeLabel(identity));
  };
  return { renamed, labels, note };
}

/** A planned node's name this cycle: configured, attributed on its answer, or its address's reverse name. */
function plannedName(
  inputs: CycleInputs,
  p: PlannedNode,
  verdict: Verdict,
  probed: ProbedCycle,
): string | null {
  return nodeNameOf({
    origin: p.origin,
    configured: p.origin === 'listed' ? (inputs.balancer.nodeNames[p.url] ?? null) : null,
    verdict,
    servedBy: null,
    reverse: p.address ? (probed.reverseNames.get(p.address) ?? null) : null,
    known: inputs.known.get(p.key)?.name ?? null,
  });
}

/**
 * Observe: each verdict becomes a node result (a sample attributed to a node it names, a new node minted for
 * a name never seen), each node is named, the nodes' recent fingerprint changes are brought up to now, and
 * this region's analysis is made from them.
 */
function observe(
  inputs: CycleInputs,
  plan: PlannedCycle,
  probed: ProbedCycle,
  at: number,
  deps: Pick<CycleDeps, 'gateRevisions'>,
): ObservedCycle {
  const { balancer, known } = inputs;
  const { newNodes, idFor } = nodeIds(known);
  const namer = nodeNamer(inputs);
  const results: NodeResult[] = [];
  const observations: NodeObservation[] = [];
  // Read with the inputs, from the flap window's start then; the window ends now (only this unit's holder
  // adds this region's changes, so none arrived while it probed).
  const windowStart = at - DEFAULT_FLAP_WINDOW_MS;
  const recent = new Map(
    [...inputs.recentChanges].map(([id, times]) => [id, times.filter((t) => t >= windowStart)] as const),
  );
  plan.nodes.forEach((p, i) => {
    const verdict = probed.nodeVerdicts[i];
    if (!verdict) return;
    const identity = { origin: p.origin, url: p.url, address: p.address, servedBy: null };
    const name = plannedName(inputs, p, verdict, probed);
    const nodeId = idFor(p.key, { ...identity, name });
    namer.note(nodeId, p.key, { ...identity, name });
    const result = resultOf(nodeId, known.get(p.key), verdict);
    results.push(result);
    const changes = recent.get(nodeId) ?? [];
    const lastKey = result.prior?.lastAvailableKey;
    const changedNow = result.fingerprintKey !== null && lastKey && lastKey !== result.fingerprintKey;
    observations.push({
      nodeId,
      verdict,
      recentChanges: changedNow ? [...changes, verdict.probedAt] : changes,
      name,
    });
  });
  const samples = observeSamples(inputs, plan, probed, idFor, namer);
  results.push(...samples.states);
  const open = inputs.openWindow;
  const analysis = analyzeCycle({
    balancerId: balancer.id,
    at,
    nodes: observations,
    samples: samples.observations,
    window: open
      ? { id: open.id, target: open.target, openedAt: open.openedAt, deadline: open.deadline }
      : null,
    gateRevisions: deps.gateRevisions ?? [...DEFAULT_MODERN_VERSIONS],
    previous: inputs.previous,
  });
  return { newNodes, renamed: namer.renamed, results, analysis, labels: namer.labels };
}

/** Samples: each attributed to the node its served-by value names, a node seen only this way named by it. */
function observeSamples(
  inputs: CycleInputs,
  plan: PlannedCycle,
  probed: ProbedCycle,
  idFor: ReturnType<typeof nodeIds>['idFor'],
  namer: ReturnType<typeof nodeNamer>,
): { observations: SampleObservation[]; states: NodeResult[] } {
  const { balancer, known } = inputs;
  const observations: SampleObservation[] = [];
  const sampleStates = new Map<string, NodeResult>();
  for (const verdict of probed.sampleVerdicts) {
    if (!verdict.servedBy) {
      observations.push({ verdict, nodeId: null });
      continue;
    }
    const key = attributionKey(verdict.servedBy, plan.nodes);
    const servedBy = verdict.servedBy;
    const identity = { origin: 'sample' as const, url: balancer.publicUrl, address: null, servedBy };
    const name = remoteName(servedBy);
    const nodeId = idFor(key, { ...identity, name });
    observations.push({ verdict, nodeId });
    // A sample-only node's state is its latest attributed sample of the cycle.
    if (key.startsWith('sample:')) {
      namer.note(nodeId, key, { ...identity, name });
      sampleStates.set(nodeId, resultOf(nodeId, known.get(key), verdict));
    }
  }
  return { observations, states: [...sampleStates.values()] };
}

/** Each event about a node carries the node's name (its label when it has none) as `data.nodeName`. */
function withNodeNames(events: EventDraft[], labels: ReadonlyMap<string, string>): EventDraft[] {
  return events.map((e) => {
    const nodeName = e.nodeId === null ? undefined : labels.get(e.nodeId);
    return nodeName === undefined ? e : { ...e, data: { ...e.data, nodeName } };
  });
}

/**
 * Write: this region's analysis beside the others', their combination and its events, all in the one
 * transaction that the fence guards (two regions finishing at once each see the other's row). The regions
 * that must have a result are the balancer's own list, else every region with a live poll worker, read inside
 * the write: a worker of another region that started while this cycle probed counts.
 */
async function writeCycle(
  store: Store,
  inputs: CycleInputs,
  observed: ObservedCycle,
  at: number,
  deps: Pick<CycleDeps, 'region' | 'fence'>,
): Promise<{ analysis: BalancerAnalysis; events: StoredEvent[] }> {
  const { balancer } = inputs;
  const { region } = deps;
  const balancerId = balancer.id;
  let combined = observed.analysis;
  const events = await fencedWrite(store, deps.fence, `balancer ${balancerId}`, at, async () => {
    const own = { balancerId, region, at, analysis: observed.analysis };
    const { others, previousCombined, previousCombinedDigest } = await storeRegionAnalysis(
      store,
      { ...own, analysisDigest: analysisDigest(observed.analysis) },
      inputs.previousDigest,
    );
    const expectedRegions = balancer.regions ?? [
      ...new Set([region, ...(await listPollWorkers(store, at)).map((w) => w.region)]),
    ];
    const step = combineStep({
      balancerId,
      at,
      intervalMs: balancer.intervalMs,
      mine: { region, analysis: observed.analysis },
      stored: others,
      expectedRegions,
      previous: previousCombined,
    });
    combined = step.combined;
    const digest = analysisDigest(step.combined);
    return writeProbes(store, {
      kind: 'node',
      ...own,
      newNodes: observed.newNodes,
      renamed: observed.renamed,
      results: observed.results,
      analysis: step.combined,
      analysisDigest: digest,
      analysisUnchanged: digest === previousCombinedDigest,
      events: withNodeNames(step.events, observed.labels),
    });
  });
  return { analysis: combined, events };
}
