// Cumulative metric series in the store: writers add deltas, readers list the totals. Counters and histogram
// buckets only (both only ever grow), so any number of processes can add to one series.
import { asc, sql } from 'drizzle-orm';
import type { Store } from '@/db/index';

export interface SeriesDelta {
  name: string;
  /** Canonical label text, e.g. `era="modern",le="0.5"`; empty for none. */
  labels: string;
  delta: number;
}

export interface SeriesValue {
  name: string;
  labels: string;
  value: number;
}

/** Adds every delta in one transaction (one statement). */
export async function addToSeries(store: Store, deltas: readonly SeriesDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  const { metricSeries: m } = store.t;
  // One row per (name, labels) per statement: an upsert may not touch the same row twice.
  const merged = new Map<string, SeriesDelta>();
  for (const d of deltas) {
    const key = `${d.name}\u0000${d.labels}`;
    const prev = merged.get(key);
    merged.set(key, prev ? { ...prev, delta: prev.delta + d.delta } : d);
  }
  // In key order: processes upserting the same rows at once then lock them in one order and never deadlock.
  const rows = Array.from(merged)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, d]) => ({ name: d.name, labels: d.labels, value: d.delta }));
  await store.write(async (tx) => {
    // Chunks keep each statement under SQLite's bound-parameter limit.
    for (let i = 0; i < rows.length; i += 200) {
      await tx
        .insert(m)
        .values(rows.slice(i, i + 200))
        .onConflictDoUpdate({
          target: [m.name, m.labels],
          set: { value: sql`${m.value} + excluded.value` },
        });
    }
  });
}

/** Every series whose name starts with one of the prefixes, sorted by name and labels. */
export async function listSeries(store: Store, prefixes: readonly string[]): Promise<SeriesValue[]> {
  const { metricSeries: m } = store.t;
  const rows = await store.read((db) =>
    db.select({ name: m.name, labels: m.labels, value: m.value }).from(m).orderBy(asc(m.name), asc(m.labels)),
  );
  return rows.filter((r) => prefixes.some((p) => r.name.startsWith(p)));
}
