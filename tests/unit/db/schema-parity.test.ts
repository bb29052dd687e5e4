// The PostgreSQL tables (db/schema-pg) must stay twins of the SQLite ones (db/schema): same tables, columns,
// nullability, defaults, keys and indexes, with each SQLite type mapped to its PostgreSQL counterpart.
import { is, SQL } from 'drizzle-orm';
import { bigint, getTableConfig as pgConfig, jsonb, PgTable, pgTable, text } from 'drizzle-orm/pg-core';
import { getTableConfig as sqliteConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import * as sqliteSchema from '@/db/schema';
import * as pgSchema from '@/db/schema-pg';

/** SQLite column type (drizzle's columnType) → the PostgreSQL SQL types its twin may have. */
const TYPE_MAP: Record<string, string[]> = {
  SQLiteInteger: ['integer', 'bigint'],
  SQLiteBoolean: ['boolean'],
  SQLiteText: ['text'],
  SQLiteTextJson: ['jsonb'],
  SQLiteBlobBuffer: ['bytea'],
  SQLiteReal: ['double precision'],
};

/** Epoch-millisecond columns: 32 bits end in 1970, so their twins must be bigint. */
const TIME_COLUMN = /(^|_)at$|_since$|_until$|^deadline$/;

function tablesOf<T>(mod: Record<string, unknown>, isTable: (v: unknown) => v is T): Map<string, T> {
  const out = new Map<string, T>();
  for (const [name, value] of Object.entries(mod)) if (isTable(value)) out.set(name, value);
  return out;
}

const isSqliteTable = (v: unknown): v is SQLiteTable => is(v, SQLiteTable);
const isPgTable = (v: unknown): v is PgTable => is(v, PgTable);

function shownDefault(value: unknown): string {
  return is(value, SQL) ? 'sql' : JSON.stringify(value);
}

/** Every difference between the two definitions, one line each; empty when they are twins. */
function schemaDifferences(sqliteMod: Record<string, unknown>, pgMod: Record<string, unknown>): string[] {
  const diffs: string[] = [];
  const lite = tablesOf(sqliteMod, isSqliteTable);
  const pg = tablesOf(pgMod, isPgTable);
  for (const name of lite.keys()) if (!pg.has(name)) diffs.push(`${name}: no PostgreSQL twin exported`);
  for (const name of pg.keys()) if (!lite.has(name)) diffs.push(`${name}: no SQLite table exported`);

  for (const [exportName, liteTable] of lite) {
    const pgTableDef = pg.get(exportName);
    if (!pgTableDef) continue;
    const l = sqliteConfig(liteTable);
    const p = pgConfig(pgTableDef);
    const where = l.name;
    if (l.name !== p.name) diffs.push(`${exportName}: table name ${l.name} vs ${p.name}`);

    const pgColumns = new Map(p.columns.map((c) => [c.name, c]));
    for (const lc of l.columns) {
      const pc = pgColumns.get(lc.name);
      const col = `${where}.${lc.name}`;
      if (!pc) {
        diffs.push(`${col}: missing in PostgreSQL`);
        continue;
      }
      pgColumns.delete(lc.name);
      const allowed = TYPE_MAP[lc.columnType];
      const pgType = pc.getSQLType();
      if (!allowed) diffs.push(`${col}: SQLite type ${lc.columnType} has no mapping`);
      else if (!allowed.includes(pgType)) diffs.push(`${col}: ${lc.getSQLType()} became ${pgType}`);
      if (lc.columnType === 'SQLiteInteger' && TIME_COLUMN.test(lc.name) && pgType !== 'bigint')
        diffs.push(`${col}: a time column must be bigint, is ${pgType}`);
      if (lc.notNull !== pc.notNull) diffs.push(`${col}: notNull ${lc.notNull} vs ${pc.notNull}`);
      if (lc.primary !== pc.primary) diffs.push(`${col}: primary ${lc.primary} vs ${pc.primary}`);
      if (shownDefault(lc.default) !== shownDefault(pc.default))
        diffs.push(`${col}: default ${shownDefault(lc.default)} vs ${shownDefault(pc.default)}`);
      if (lc.isUnique !== pc.isUnique || (lc.isUnique && lc.uniqueName !== pc.uniqueName))
        diffs.push(`${col}: unique ${lc.uniqueName ?? 'no'} vs ${pc.uniqueName ?? 'no'}`);
      if (JSON.stringify(lc.enumValues ?? []) !== JSON.stringify(pc.enumValues ?? []))
        diffs.push(`${col}: enum values differ`);
      const autoIncrement = 'autoIncrement' in lc && lc.autoIncrement === true;
      if (autoIncrement !== (pc.generatedIdentity !== undefined))
        diffs.push(
          `${col}: autoincrement ${autoIncrement} vs identity ${pc.generatedIdentity?.type ?? 'none'}`,
        );
    }
    for (const extra of pgColumns.keys()) diffs.push(`${where}.${extra}: missing in SQLite`);

    const keys = (list: Array<{ getName(): string | undefined; columns: Array<{ name: string }> }>) =>
      list.map((k) => `${k.getName() ?? '?'}(${k.columns.map((c) => c.name).join(',')})`).sort();
    const compare = (what: string, a: string[], b: string[]) => {
      if (JSON.stringify(a) !== JSON.stringify(b))
        diffs.push(`${where}: ${what} [${a.join(' ')}] vs [${b.join(' ')}]`);
    };
    compare('primary keys', keys(l.primaryKeys), keys(p.primaryKeys));
    compare('unique constraints', keys(l.uniqueConstraints), keys(p.uniqueConstraints));
    compare(
      'indexes',
      l.indexes
        .map((i) => {
          const cols = i.config.columns.map((c) => (is(c, SQL) ? 'sql' : c.name));
          return `${i.config.unique ? 'unique ' : ''}${i.config.name}(${cols.join(',')})`;
        })
        .sort(),
      p.indexes
        .map((i) => {
          const cols = i.config.columns.map((c) =>
            'name' in c && typeof c.name === 'string' ? c.name : 'sql',
          );
          return `${i.config.unique ? 'unique ' : ''}${i.config.name ?? '?'}(${cols.join(',')})`;
        })
        .sort(),
    );
    const fks = (
      list: Array<{
        getName(): string;
        onDelete?: string;
        onUpdate?: string;
        reference(): {
          columns: Array<{ name: string }>;
          foreignColumns: Array<{ name: string }>;
          foreignTable: unknown;
        };
      }>,
      configOf: (t: never) => { name: string },
    ) =>
      list
        .map((fk) => {
          const ref = fk.reference();
          const target = configOf(ref.foreignTable as never).name;
          const cols = ref.columns.map((c) => c.name).join(',');
          const foreign = ref.foreignColumns.map((c) => c.name).join(',');
          return `${fk.getName()}(${cols})->${target}(${foreign}) delete:${fk.onDelete ?? 'no action'} update:${fk.onUpdate ?? 'no action'}`;
        })
        .sort();
    compare('foreign keys', fks(l.foreignKeys, sqliteConfig), fks(p.foreignKeys, pgConfig));
  }
  return diffs;
}

describe('db/schema-pg against db/schema', () => {
  it('defines the same tables, columns, keys and indexes, with mapped types', () => {
    const hint = 'change db/tables/declaration.ts, then run `npm run db:generate` (renders both engines)';
    expect(schemaDifferences(sqliteSchema, pgSchema), hint).toEqual([]);
  });

  it('exports the same names (tables and the constants beside them)', () => {
    expect(Object.keys(pgSchema).sort()).toEqual(Object.keys(sqliteSchema).sort());
  });

  it('names what drifted: a dropped column, a wrong type, a lost index and a missing table', () => {
    // A twin of `events` with `node_id` dropped, `at` as text, `data` as text and no indexes.
    const drifted = pgTable('events', {
      seq: bigint('seq', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
      id: text('id').notNull().unique(),
      balancerId: text('balancer_id')
        .notNull()
        .references(() => pgSchema.balancers.id, { onDelete: 'cascade' }),
      type: text('type').notNull(),
      at: text('at').notNull(),
      data: jsonb('data'),
    });
    const { nodeRollups: _dropped, ...rest } = pgSchema;
    const diffs = schemaDifferences(sqliteSchema, { ...rest, events: drifted });
    expect(diffs).toEqual(
      expect.arrayContaining([
        'nodeRollups: no PostgreSQL twin exported',
        'events.node_id: missing in PostgreSQL',
        'events.at: integer became text',
        'events.at: a time column must be bigint, is text',
        'events.data: notNull true vs false',
        expect.stringMatching(/^events: indexes \[events_at\(at\) .*\] vs \[\]$/),
      ]),
    );
  });
});
