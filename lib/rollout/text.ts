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
