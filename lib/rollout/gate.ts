// The gate: "ready to advertise revision X" only when the fleet is uniform before it is advertised.
import { isAuthGatedReason } from '@/lib/probe/types';
import { normalizeRevisions } from './fingerprint';
import { listIds, formatRevisionSet, plural } from './text';
import type { NodeObservation } from './types';
import { RolloutInputError } from './validate';

const LISTED_SETS = 5;

/**
 * Ready only when there is at least one node, every node is available, all present the same served
 * set, and that set contains `revision`. Otherwise `reasons` name the nodes and sets in the way.
 */
export function evaluateGate(
  nodes: NodeObservation[],
  revision: string,
): { ready: boolean; reasons: string[] } {
  if (typeof revision !== 'string' || revision.trim() === '') {
    throw new RolloutInputError(['revision must be a non-empty string']);
  }
  if (nodes.length === 0) return { ready: false, reasons: ['no nodes to check'] };

  const reasons: string[] = [];
  const down = nodes.filter((n) => n.verdict.verdict === 'unavailable');
  const unavailable = down
    .filter((n) => !isAuthGatedReason(n.verdict.reason))
    .map((n) => `${n.nodeId} (${n.verdict.reason})`)
    .sort();
  if (unavailable.length > 0) {
    reasons.push(`${plural(unavailable.length, 'node', 'nodes')} unavailable: ${listIds(unavailable)}`);
  }
  const gated = down
    .filter((n) => isAuthGatedReason(n.verdict.reason))
    .map((n) => `${n.nodeId} (${n.verdict.reason})`)
    .sort();
  if (gated.length > 0) {
    reasons.push(
      `cannot judge ${plural(gated.length, 'auth-gated node', 'auth-gated nodes')}: ${listIds(gated)}`,
    );
  }

  const bySet = new Map<string, { set: string[]; nodeIds: string[] }>();
  for (const node of nodes) {
    if (node.verdict.verdict === 'unavailable') continue;
    const set = normalizeRevisions(node.verdict.supported);
    const key = set.join(' ');
    const entry = bySet.get(key) ?? { set, nodeIds: [] };
    entry.nodeIds.push(node.nodeId);
    bySet.set(key, entry);
  }
  const sets = [...bySet.values()]
    .map((e) => ({ set: e.set, nodeIds: e.nodeIds.sort() }))
    .sort((a, b) => b.nodeIds.length - a.nodeIds.length || (a.set.join() < b.set.join() ? -1 : 1));

  if (sets.length > 1) {
    const described = sets
      .slice(0, LISTED_SETS)
      .map((s) => `${formatRevisionSet(s.set)} on ${listIds(s.nodeIds)}`)
      .join('; ');
    const more = sets.length > LISTED_SETS ? `; and ${sets.length - LISTED_SETS} more sets` : '';
    reasons.push(`nodes present ${sets.length} different served sets: ${described}${more}`);
  }
  const lacking = sets.filter((s) => !s.set.includes(revision));
  const onlyLacking = sets.length === 1 ? lacking[0] : undefined;
  if (onlyLacking) {
    reasons.push(`the served set ${formatRevisionSet(onlyLacking.set)} does not include ${revision}`);
  } else if (lacking.length > 0) {
    const ids = lacking.flatMap((s) => s.nodeIds).sort();
    reasons.push(`${revision} is not served by ${listIds(ids)}`);
  }

  return { ready: reasons.length === 0, reasons };
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
 * yet (or none was probed): their answer is unknown, so the gate cannot vouch for them.
 */
export function judgeGate(
  nodes: NodeObservation[],
  unprobedIds: string[],
  revision: string,
): { state: GateState; ready: boolean; reasons: string[] } {
  if (nodes.length === 0) return { state: 'cannot_judge', ready: false, reasons: ['no probed nodes yet'] };
  const gated = nodes.filter(isAuthGated);
  const readable = nodes.filter((n) => !isAuthGated(n));
  const unknown: string[] = [];
  if (gated.length > 0) {
    const ids = gated.map((n) => `${n.nodeId} (${n.verdict.reason})`).sort();
    unknown.push(
      `cannot judge ${plural(gated.length, 'auth-gated node', 'auth-gated nodes')}: ${listIds(ids)}`,
    );
  }
  if (unprobedIds.length > 0) unknown.push(`not probed yet: ${listIds([...unprobedIds].sort())}`);
  if (readable.length === 0) return { state: 'cannot_judge', ready: false, reasons: unknown };
  const result = evaluateGate(readable, revision);
  if (!result.ready) return { state: 'closed', ready: false, reasons: [...result.reasons, ...unknown] };
  if (unknown.length > 0) return { state: 'cannot_judge', ready: false, reasons: unknown };
  return { state: 'open', ready: true, reasons: [] };
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
