// The gate: "ready to advertise revision X" only when the fleet is uniform before it is advertised.
import { isAuthGatedReason } from '@/lib/probe/types';
import { normalizeRevisions } from './fingerprint';
import { listIds, formatRevisionSet, plural } from './text';
import type { NodeObservation } from './types';
import { RolloutInputError } from './validate';

const LISTED_SETS = 5;

/**
 * Which nodes a gate reason names, as the node list's filter (lib/schemas/node-query.ts NodeFilter): the
 * dashboard's matrix and GET /balancers/{id}/nodes select exactly them.
 */
export interface GateNodeFilter {
  availability?: 'unavailable' | 'auth-gated';
  lacks?: string;
  group?: string;
}

/** One reason with the nodes it names: how many, and the filter that lists them (null: no filter can). */
export interface GateDetail {
  text: string;
  nodes: { count: number; filter: GateNodeFilter } | null;
}

export interface GateVerdict {
  ready: boolean;
  /** The details' texts, in order: what a pipeline prints. */
  reasons: string[];
  details: GateDetail[];
}

/** How a reason names a node: its display name, else its URL. */
export function gateLabel(node: NodeObservation): string {
  return node.name ?? node.verdict.url;
}

function withNodes(text: string, count: number, filter: GateNodeFilter): GateDetail {
  return { text, nodes: { count, filter } };
}

function verdictOf(details: GateDetail[]): GateVerdict {
  return { ready: details.length === 0, reasons: details.map((d) => d.text), details };
}

/** The unavailable and auth-gated nodes' reasons. */
function downDetails(nodes: NodeObservation[]): GateDetail[] {
  const details: GateDetail[] = [];
  const down = nodes.filter((n) => n.verdict.verdict === 'unavailable');
  const unavailable = down
    .filter((n) => !isAuthGatedReason(n.verdict.reason))
    .map((n) => `${gateLabel(n)} (${n.verdict.reason})`)
    .sort();
  if (unavailable.length > 0) {
    const text = `${plural(unavailable.length, 'node', 'nodes')} unavailable: ${listIds(unavailable)}`;
    details.push(withNodes(text, unavailable.length, { availability: 'unavailable' }));
  }
  const gated = down.filter((n) => isAuthGatedReason(n.verdict.reason));
  if (gated.length > 0) details.push(authGatedDetail(gated));
  return details;
}

function authGatedDetail(gated: NodeObservation[]): GateDetail {
  const named = gated.map((n) => `${gateLabel(n)} (${n.verdict.reason})`).sort();
  const text = `cannot judge ${plural(gated.length, 'auth-gated node', 'auth-gated nodes')}: ${listIds(named)}`;
  return withNodes(text, gated.length, { availability: 'auth-gated' });
}

/** The served sets of the available nodes, largest first, each with its nodes' labels sorted. */
function servedSets(nodes: NodeObservation[]): Array<{ set: string[]; labels: string[] }> {
  const bySet = new Map<string, { set: string[]; labels: string[] }>();
  for (const node of nodes) {
    if (node.verdict.verdict === 'unavailable') continue;
    const set = normalizeRevisions(node.verdict.supported);
    const key = set.join(' ');
    const entry = bySet.get(key) ?? { set, labels: [] };
    entry.labels.push(gateLabel(node));
    bySet.set(key, entry);
  }
  return [...bySet.values()]
    .map((e) => ({ set: e.set, labels: e.labels.sort() }))
    .sort((a, b) => b.labels.length - a.labels.length || (a.set.join() < b.set.join() ? -1 : 1));
}

/**
 * Ready only when there is at least one node, every node is available, all present the same served
 * set, and that set contains `revision`. Otherwise the reasons name the nodes (by name, else URL) and sets in
 * the way, each with the filter that lists its nodes.
 */
export function evaluateGate(nodes: NodeObservation[], revision: string): GateVerdict {
  if (typeof revision !== 'string' || revision.trim() === '') {
    throw new RolloutInputError(['revision must be a non-empty string']);
  }
  if (nodes.length === 0) return verdictOf([{ text: 'no nodes to check', nodes: null }]);

  const details = downDetails(nodes);
  const sets = servedSets(nodes);
  if (sets.length > 1) {
    const described = sets
      .slice(0, LISTED_SETS)
      .map((s) => `${formatRevisionSet(s.set)} on ${listIds(s.labels)}`)
      .join('; ');
    const more = sets.length > LISTED_SETS ? `; and ${sets.length - LISTED_SETS} more sets` : '';
    details.push({
      text: `nodes present ${sets.length} different served sets: ${described}${more}`,
      nodes: null,
    });
  }
  const lacking = sets.filter((s) => !s.set.includes(revision));
  const onlyLacking = sets.length === 1 ? lacking[0] : undefined;
  const lacks = { lacks: revision };
  if (onlyLacking) {
    const text = `the served set ${formatRevisionSet(onlyLacking.set)} does not include ${revision}`;
    details.push(withNodes(text, onlyLacking.labels.length, lacks));
  } else if (lacking.length > 0) {
    const labels = lacking.flatMap((s) => s.labels).sort();
    details.push(withNodes(`${revision} is not served by ${listIds(labels)}`, labels.length, lacks));
  }
  return verdictOf(details);
}

export const GATE_STATES = ['open', 'closed', 'cannot_judge'] as const;
export type GateState = (typeof GATE_STATES)[number];

/** A node that refused us (401/403, or no token could be had) says nothing of what it serves. */
export function isAuthGated(node: NodeObservation): boolean {
  return node.verdict.verdict === 'unavailable' && isAuthGatedReason(node.verdict.reason);
}

/**
 * The gate with a third answer: `closed` when the nodes Erawatch can read already rule it out, `open` when
 * every node passes, and `cannot_judge` when the rest would pass but some nodes are auth-gated or not probed
 * yet (or none was probed): their answer is unknown, so the gate cannot vouch for them. `unprobed` are the
 * labels (name, else URL) of the nodes not probed yet.
 */
export function judgeGate(
  nodes: NodeObservation[],
  unprobed: string[],
  revision: string,
): GateVerdict & { state: GateState } {
  if (nodes.length === 0)
    return { state: 'cannot_judge', ...verdictOf([{ text: 'no probed nodes yet', nodes: null }]) };
  const gated = nodes.filter(isAuthGated);
  const readable = nodes.filter((n) => !isAuthGated(n));
  const unknown: GateDetail[] = [];
  if (gated.length > 0) unknown.push(authGatedDetail(gated));
  if (unprobed.length > 0)
    unknown.push({ text: `not probed yet: ${listIds([...unprobed].sort())}`, nodes: null });
  if (readable.length === 0) return { state: 'cannot_judge', ...verdictOf(unknown) };
  const result = evaluateGate(readable, revision);
  if (!result.ready) return { state: 'closed', ...verdictOf([...result.details, ...unknown]) };
  if (unknown.length > 0) return { state: 'cannot_judge', ...verdictOf(unknown) };
  return { state: 'open', ...verdictOf([]) };
}

/** Tool catalogs that differ while the served revisions agree: the gate stays open, but says so. */
export interface CatalogDrift {
  /** Every tool some group adds, lacks or has in another form against the largest group, sorted. */
  tools: string[];
  /** One sentence for people: which tools, and what it means for clients. */
  detail: string;
}

/**
 * The catalog drift of an analysis' partition, from each group's diff against the largest group; null when
 * every listed catalog is the same (or none was listed).
 */
export function catalogDriftOf(
  partition: ReadonlyArray<{ catalogDiff?: { adds: string[]; lacks: string[]; changed: string[] } | null }>,
): CatalogDrift | null {
  const diffs = partition.flatMap((g) => (g.catalogDiff ? [g.catalogDiff] : []));
  if (diffs.length === 0) return null;
  const tools = [...new Set(diffs.flatMap((d) => [...d.adds, ...d.lacks, ...d.changed]))].sort();
  const named = tools.length > 0 ? `: ${tools.join(', ')}` : ' (same names, other descriptions or schemas)';
  return {
    tools,
    detail: `tool catalogs differ between nodes${named}; the gate judges the served revisions only, so a client that cached one node's tools/list may call a tool another node lacks`,
  };
}
