// Cumulative metric series in the store: writers add deltas, readers list the totals. Counters and histogram
// buckets only (both only ever grow), so any number of processes can add to one series.
import { writeTransaction, type Store } from '@/db/index';

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

/** Adds every delta in one transaction. */
export function addToSeries(store: Store, deltas: readonly SeriesDelta[]): void {
  if (deltas.length === 0) return;
  writeTransaction(store, () => {
    const stmt = store.sqlite.prepare(
      `INSERT INTO metric_series (name, labels, value) VALUES (?, ?, ?)
       ON CONFLICT(name, labels) DO UPDATE SET value = value + excluded.value`,
    );
    for (const d of deltas) stmt.run(d.name, d.labels, d.delta);
  });
}

/** Every series whose name starts with one of the prefixes, sorted by name and labels. */
export function listSeries(store: Store, prefixes: readonly string[]): SeriesValue[] {
  const rows = store.sqlite
    .prepare('SELECT name, labels, value FROM metric_series ORDER BY name, labels')
    .all() as SeriesValue[];
  return rows.filter((r) => prefixes.some((p) => r.name.startsWith(p)));
}
