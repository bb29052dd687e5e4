// Small text helpers shared by the gate, window and label code.

const LISTED_IDS = 10;

/** "a, b, c" or "a, b, … and 12 more": reasons stay readable for fleets of thousands. */
export function listIds(ids: readonly string[], limit = LISTED_IDS): string {
  if (ids.length <= limit) return ids.join(', ');
  return `${ids.slice(0, limit).join(', ')} and ${ids.length - limit} more`;
}

export function formatRevisionSet(revisions: readonly string[]): string {
  return revisions.length === 0 ? '[] (nothing)' : `[${revisions.join(', ')}]`;
}

export function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** One character as shown: a control character (C0, DEL, C1) as `\xNN`, anything else itself. */
function shownChar(ch: string): string {
  const c = ch.charCodeAt(0);
  if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return `\\x${c.toString(16).padStart(2, '0')}`;
  // A lone surrogate has no UTF-8 form: JSON, headers and Alertmanager labels would each mangle it.
  if (c >= 0xd800 && c <= 0xdfff && ch.length === 1) return '\uFFFD';
  return ch;
}

/**
 * Text from elsewhere made safe to show and send on: control characters escaped (`\xNN`), a lone surrogate as
 * U+FFFD, at most `max` characters (the last one `…` when cut, an escape never split).
 */
export function boundedText(value: string, max: number): string {
  const pieces = Array.from(value, shownChar);
  let out = '';
  for (const [i, piece] of pieces.entries()) {
    const last = i === pieces.length - 1;
    if (out.length + piece.length > (last ? max : max - 1)) return `${out}…`;
    out += piece;
  }
  return out;
}
