// The gate: "ready to advertise revision X" only when the fleet is uniform before it is advertised.
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
  const unavailable = nodes
    .filter((n) => n.verdict.verdict === 'unavailable')
    .map((n) => `${n.nodeId} (${n.verdict.reason})`)
    .sort();
  if (unavailable.length > 0) {
    reasons.push(`${plural(unavailable.length, 'node', 'nodes')} unavailable: ${listIds(unavailable)}`);
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
