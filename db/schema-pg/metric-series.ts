import { doublePrecision, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/** PostgreSQL twin of db/schema/metric-series.ts; SQLite's REAL is an 8-byte float, so double precision. */
export const metricSeries = pgTable(
  'metric_series',
  {
    name: text('name').notNull(),
    labels: text('labels').notNull(),
    value: doublePrecision('value').notNull(),
  },
  (t) => [primaryKey({ columns: [t.name, t.labels] })],
);
