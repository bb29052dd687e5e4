// How an operator recognises a node: its display name when it has one (configured, attributed or reverse DNS),
// else its URL, its address, or the attribution value for nodes found through samples.
import type { NodeIdentity } from '@/lib/schemas/balancer-view';

export function nodeLabel(n: NodeIdentity): string {
  if (n.name) return n.name;
  if (n.origin === 'sample' && n.servedBy) return `${n.servedBy} (via public URL)`;
  if (n.origin === 'dns' && n.address) return `${n.address} (${n.url})`;
  return n.url;
}

/** Labels for nodes given by id. */
export function nodeLabels(identities: Record<string, NodeIdentity>): Record<string, string> {
  return Object.fromEntries(Object.entries(identities).map(([id, n]) => [id, nodeLabel(n)]));
}
