// What a node is called: the name configured for a listed node, else the attribution header's value on its own
// answers, else (a node found through samples) its served-by value, else the reverse-DNS name of a DNS node's
// address. Names a remote party supplies (headers, reverse DNS) are made safe to show and to send on: control
// characters escaped, at most NODE_NAME_MAX characters.
import type { Verdict } from '@/lib/probe/types';
import { NODE_NAME_MAX } from '@/lib/schemas/balancer';
import type { NodeOrigin } from '@/db';

/** One character as shown: a control character (C0, DEL, C1) as `\xNN`, anything else itself. */
function shownChar(ch: string): string {
  const c = ch.charCodeAt(0);
  if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return `\\x${c.toString(16).padStart(2, '0')}`;
  // A lone surrogate has no UTF-8 form: JSON, headers and Alertmanager labels would each mangle it.
  if (c >= 0xd800 && c <= 0xdfff && ch.length === 1) return '\uFFFD';
  return ch;
}

/**
 * A remote party's name for a node, safe to store and show: trimmed, control characters escaped, cut to
 * NODE_NAME_MAX characters (the last one `…` when cut, an escape never split); null when empty.
 */
export function remoteName(value: string | null | undefined): string | null {
  const trimmed = value?.trim() ?? '';
  if (trimmed === '') return null;
  const pieces = Array.from(trimmed, shownChar);
  let out = '';
  for (const [i, piece] of pieces.entries()) {
    const last = i === pieces.length - 1;
    if (out.length + piece.length > (last ? NODE_NAME_MAX : NODE_NAME_MAX - 1)) return `${out}…`;
    out += piece;
  }
  return out;
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
