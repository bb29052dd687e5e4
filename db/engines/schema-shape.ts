// Compile-time proof that the PostgreSQL tables have the SQLite tables' JS shape (row types in and out), so
// the query layer, typed against db/schema, runs unchanged on db/schema-pg.
import type * as sqlite from '../schema';
import type * as pg from '../schema-pg';

type Equal<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false;
type Tables<S> = { [K in keyof S as S[K] extends { $inferSelect: unknown } ? K : never]: S[K] };
type Rows<S> = { [K in keyof Tables<S>]: Tables<S>[K] extends { $inferSelect: infer R } ? R : never };
// Which insert fields may be omitted differs (SQLite's INTEGER PRIMARY KEY is the rowid); their types may not.
type Inserts<S> = {
  [K in keyof Tables<S>]: Tables<S>[K] extends { $inferInsert: infer R } ? Required<R> : never;
};

export const sameExports: Equal<keyof typeof sqlite, keyof typeof pg> = true;
export const sameRows: Equal<Rows<typeof sqlite>, Rows<typeof pg>> = true;
export const sameInserts: Equal<Inserts<typeof sqlite>, Inserts<typeof pg>> = true;
