// The SQLite tables, rendered from the one declaration (db/tables/declaration.ts) into tables.ts, and the
// constants beside them. drizzle.config.ts points here.
export * from './tables';
export * from '../tables/types';
// One list of event types: the analysis emits them, the table stores them.
export { EVENT_TYPES, type EventType } from '../../lib/rollout/types';
