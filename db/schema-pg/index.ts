// The PostgreSQL tables, rendered from the one declaration (db/tables/declaration.ts) into tables.ts, and the
// constants beside them. drizzle.pg.config.ts points here.
export * from './tables';
export * from '../tables/types';
export { EVENT_TYPES, type EventType } from '../../lib/rollout/types';
