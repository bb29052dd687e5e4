// How an operator recognises a node: its URL, or the attribution value for nodes found through samples.
export interface NodeIdentity {
  origin: 'listed' | 'dns' | 'sample';
  url: string;
  servedBy: string | null;
  address: string | null;
}

export function nodeLabel(n: NodeIdentity): string {
  if (n.origin === 'sample' && n.servedBy) return `${n.servedBy} (via public URL)`;
  if (n.origin === 'dns' && n.address) return `${n.address} (${n.url})`;
  return n.url;
}
