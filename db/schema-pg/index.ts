// PostgreSQL twins of every table in db/schema/, same names and shapes (checked by tests/unit/db/schema-parity).
// drizzle.pg.config.ts points here; add a line when adding a table to db/schema/index.ts.
export * from './balancers';
export * from './nodes';
export * from './events';
export * from './rollout-windows';
export * from './balancer-states';
export * from './balancer-region-states';
export * from './regions';
export * from './poll-units';
export * from './tokens';
export * from './webhooks';
export * from './rollups';
export * from './minute-rollups';
export * from './stdio-targets';
export * from './subjects';
export * from './sink-alerts';
export * from './heartbeats';
export * from './sessions';
export * from './metric-series';
export * from './claims';
export * from './audit';
