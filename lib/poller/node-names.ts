// What a node is called: the name configured for a listed node, else the attribution header's value on its own
// answers, else (a node found through samples) its served-by value, else the reverse-DNS name of a DNS node's
// address. Names a remote party supplies (headers, reverse DNS) are made safe to show and to send on: control
// characters escaped, at most NODE_NAME_MAX characters.
import type { Verdict } from '@/lib/probe/types';
import { boundedText } from '@/lib/rollout/text';
import { NODE_NAME_MAX } from '@/lib/schemas/balancer';
import type { NodeOrigin } from '@/db';

/**
 * A remote party's name for a node, safe to store and show: trimmed, control characters escaped, cut to
 * NODE_NAME_MAX characters (the last one `…` when cut, an escape never split); null when empty.
 */
export function remoteName(value: string | null | undefined): string | null {
  const trimmed = value?.trim() ?? '';
  return trimmed === '' ? null : boundedText(trimmed, NODE_NAME_MAX);
}

export interface NameFacts {
  origin: NodeOrigin;
  /** The name configured for a listed node's URL, if any. */
  configured: string | null;
  /** This cycle's verdict of the node's own probe (null for a node seen only through samples). */
  verdict: Verdict | null;
  /** A sampled node's served-by value. */
  servedBy: string | null;
  /** The reverse-DNS name of a DNS node's address, when the lookup gave one. */
  reverse: string | null;
  /** The name stored before this cycle. */
  known: string | null;
}

/**
 * A node's name this cycle. A remote name only seen when the node answers (its attribution header, a DNS
 * node's reverse name) is kept while it does not: a node that is down keeps the name it had.
 */
export function nodeNameOf(f: NameFacts): string | null {
  if (f.configured) return f.configured;
  const attributed = remoteName(f.verdict?.servedBy);
  if (attributed) return attributed;
  if (f.origin === 'sample') return remoteName(f.servedBy);
  if (f.origin === 'dns') return remoteName(f.reverse) ?? f.known;
  return f.verdict && f.verdict.verdict !== 'unavailable' ? null : f.known;
}
