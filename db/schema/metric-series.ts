import { primaryKey, real, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Cumulative metric series shared by every process on this store: whichever process probes adds its deltas,
 * and /metrics on any web process renders them. `labels` is the canonical `k="v",…` text of the series.
 */
export const metricSeries = sqliteTable(
  'metric_series',
  {
    name: text('name').notNull(),
    labels: text('labels').notNull(),
    value: real('value').notNull(),
  },
  (t) => [primaryKey({ columns: [t.name, t.labels] })],
);

export type MetricSeriesRow = typeof metricSeries.$inferSelect;
