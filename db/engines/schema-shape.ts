// Compile-time proof that the PostgreSQL tables have the SQLite tables' JS shape (row types in and out), so
// the query layer, typed against db/schema, runs unchanged on db/schema-pg. An error here names the tables
// that differ: both are rendered from db/tables/declaration.ts, so fix the dialect (db/tables/dialects.ts).
import type * as sqlite from '../schema';
import type * as pg from '../schema-pg';

type Equal<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false;
type Tables<S> = { [K in keyof S as S[K] extends { $inferSelect: unknown } ? K : never]: S[K] };
type Rows<S> = { [K in keyof Tables<S>]: Tables<S>[K] extends { $inferSelect: infer R } ? R : never };
// Which insert fields may be omitted differs (SQLite's INTEGER PRIMARY KEY is the rowid); their types may not.
type Inserts<S> = {
  [K in keyof Tables<S>]: Tables<S>[K] extends { $inferInsert: infer R } ? Required<R> : never;
};
type Differ<A, B> = {
  [K in keyof A | keyof B]: K extends keyof A
    ? K extends keyof B
      ? Equal<A[K], B[K]> extends true
        ? never
        : K
      : K
    : K;
}[keyof A | keyof B];
type Twins<D> = [D] extends [never] ? 'twins' : { differ: D };

export const exportsMatch: Twins<
  Exclude<keyof typeof sqlite, keyof typeof pg> | Exclude<keyof typeof pg, keyof typeof sqlite>
> = 'twins';
export const rowsMatch: Twins<Differ<Rows<typeof sqlite>, Rows<typeof pg>>> = 'twins';
export const insertsMatch: Twins<Differ<Inserts<typeof sqlite>, Inserts<typeof pg>>> = 'twins';
