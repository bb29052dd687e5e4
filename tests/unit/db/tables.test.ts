// Both engines' tables come from the one declaration (db/tables/declaration.ts): the checked-in renderings are
// what the dialect factory renders now, and each engine's drizzle tables carry exactly the declared tables,
// columns, types, keys, references and indexes.
import fs from 'node:fs';
import path from 'node:path';
import { is, SQL } from 'drizzle-orm';
import { getTableConfig as pgConfig, PgTable } from 'drizzle-orm/pg-core';
import { getTableConfig as sqliteConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import * as sqliteSchema from '@/db/schema';
import * as pgSchema from '@/db/schema-pg';
import { TABLES, type ColumnKind, type TableDecl } from '@/db/tables/declaration';
import { RENDERED_FILES, type DialectName } from '@/db/tables/dialects';
import { formattedTables } from '@/scripts/tables-format';
import { SESSION_ISSUERS, USER_ROLES } from '@/lib/schemas/session';
import { TOKEN_SCOPES } from '@/lib/schemas/token';
import { DELIVERY_STATUSES } from '@/lib/schemas/webhook';

/** The constants a declaration's `enum` names. */
const ENUMS: Record<string, readonly string[]> = {
  NODE_ORIGINS: sqliteSchema.NODE_ORIGINS,
  ENDPOINT_KINDS: sqliteSchema.ENDPOINT_KINDS,
  TOKEN_SCOPES,
  DELIVERY_STATUSES,
  USER_ROLES,
  SESSION_ISSUERS,
};

/** The declaration, by export name. */
const DECLARED: Record<string, TableDecl> = TABLES;

const root = path.resolve(import.meta.dirname, '../../..');

/** What each engine's SQL type must be for a declared kind. */
const SQL_TYPES: Record<DialectName, Record<ColumnKind, string>> = {
  sqlite: {
    text: 'text',
    int: 'integer',
    big: 'integer',
    bool: 'integer',
    json: 'text',
    real: 'real',
    bytes: 'blob',
    serial: 'integer',
  },
  pg: {
    text: 'text',
    int: 'integer',
    big: 'bigint',
    bool: 'boolean',
    json: 'jsonb',
    real: 'double precision',
    bytes: 'bytea',
    serial: 'bigint',
  },
};

interface Shape {
  name: string;
  columns: Array<{
    key: string;
    name: string;
    sqlType: string;
    notNull: boolean;
    primary: boolean;
    unique: boolean;
    hasDefault: boolean;
    enumValues: string[];
    serial: boolean;
  }>;
  primaryKey: string[];
  indexes: string[];
  foreignKeys: string[];
}

/** A drizzle table's shape, in the declaration's terms (TypeScript keys, SQL names). */
function shapeOf(table: SQLiteTable | PgTable, dialect: DialectName): Shape {
  const config = dialect === 'sqlite' ? sqliteConfig(table as SQLiteTable) : pgConfig(table as PgTable);
  const keyOf = new Map<string, string>();
  for (const [key, col] of Object.entries(table as unknown as Record<string, { name?: unknown }>))
    if (config.columns.some((c) => c === col)) keyOf.set(String(col.name), key);
  const keyName = (c: { name: string }) => keyOf.get(c.name) ?? `?${c.name}`;
  return {
    name: config.name,
    columns: config.columns.map((c) => ({
      key: keyName(c),
      name: c.name,
      sqlType: c.getSQLType(),
      notNull: c.notNull,
      primary: c.primary,
      unique: c.isUnique,
      hasDefault: c.default !== undefined,
      enumValues: [...(c.enumValues ?? [])],
      serial:
        ('autoIncrement' in c && c.autoIncrement === true) ||
        ('generatedIdentity' in c && c.generatedIdentity !== undefined),
    })),
    primaryKey: config.primaryKeys.flatMap((k) => k.columns.map(keyName)),
    indexes: config.indexes
      .map((i) => {
        const cols = i.config.columns.map((c) => (is(c, SQL) ? 'sql' : keyName(c as { name: string })));
        const where = i.config.where ? ' partial' : '';
        return `${i.config.unique ? 'unique ' : ''}${i.config.name ?? '?'}(${cols.join(',')})${where}`;
      })
      .sort(),
    foreignKeys: config.foreignKeys
      .map((fk) => {
        const ref = fk.reference();
        const target =
          dialect === 'sqlite'
            ? sqliteConfig(ref.foreignTable as SQLiteTable).name
            : pgConfig(ref.foreignTable as PgTable).name;
        return `${ref.columns.map(keyName).join(',')}->${target}(${ref.foreignColumns.map((c) => c.name).join(',')}) ${fk.onDelete ?? 'no action'}`;
      })
      .sort(),
  };
}

/** The shape a declared table must have on an engine. */
function declaredShape(t: TableDecl, dialect: DialectName): Shape {
  const sqlName = (key: string) => t.columns[key]?.name ?? `?${key}`;
  return {
    name: t.name,
    columns: Object.entries(t.columns).map(([key, c]) => ({
      key,
      name: c.name,
      sqlType: SQL_TYPES[dialect][c.kind],
      notNull: c.notNull === true || c.primaryKey === true,
      primary: c.primaryKey === true,
      unique: c.unique === true,
      hasDefault: c.default !== undefined,
      enumValues: Array.isArray(c.enum)
        ? [...c.enum]
        : typeof c.enum === 'string'
          ? [...(ENUMS[c.enum] ?? [`?${c.enum}`])]
          : [],
      serial: c.kind === 'serial',
    })),
    primaryKey: [...(t.primaryKey ?? [])],
    indexes: (t.indexes ?? [])
      .map(
        (i) =>
          `${i.unique ? 'unique ' : ''}${i.name}(${i.columns.join(',')})${i.whereTrue ? ' partial' : ''}`,
      )
      .sort(),
    foreignKeys: Object.entries(t.columns)
      .flatMap(([key, c]) => (c.references ? [[key, c.references] as const] : []))
      .map(([key, r]) => {
        const target = DECLARED[r.table];
        return `${key}->${target?.name ?? '?'}(${target?.columns[r.column]?.name ?? sqlName(r.column)}) ${r.onDelete}`;
      })
      .concat(
        (t.foreignKeys ?? []).map((fk) => {
          const target = DECLARED[fk.table];
          const foreign = fk.foreignColumns.map((c) => target?.columns[c]?.name ?? `?${c}`);
          return `${fk.columns.join(',')}->${target?.name ?? '?'}(${foreign.join(',')}) ${fk.onDelete}`;
        }),
      )
      .sort(),
  };
}

/** Every difference between the declaration and one engine's exported tables, one line each. */
function differences(
  declared: Record<string, TableDecl>,
  mod: Record<string, unknown>,
  dialect: DialectName,
): string[] {
  const isTable = (v: unknown): v is SQLiteTable | PgTable =>
    dialect === 'sqlite' ? is(v, SQLiteTable) : is(v, PgTable);
  const exported = new Map(
    Object.entries(mod).filter((e): e is [string, SQLiteTable | PgTable] => isTable(e[1])),
  );
  const diffs: string[] = [];
  for (const name of exported.keys()) if (!declared[name]) diffs.push(`${dialect} ${name}: not declared`);
  for (const [name, decl] of Object.entries(declared)) {
    const table = exported.get(name);
    if (!table) {
      diffs.push(`${dialect} ${name}: declared, not exported`);
      continue;
    }
    const have = shapeOf(table, dialect);
    const want = declaredShape(decl, dialect);
    if (have.name !== want.name) diffs.push(`${dialect} ${name}: named ${have.name}, declared ${want.name}`);
    const haveCols = new Map(have.columns.map((c) => [c.key, c]));
    for (const w of want.columns) {
      const h = haveCols.get(w.key);
      if (!h) diffs.push(`${dialect} ${want.name}.${w.name}: declared, missing`);
      else if (JSON.stringify(h) !== JSON.stringify(w))
        diffs.push(
          `${dialect} ${want.name}.${w.name}: ${JSON.stringify(h)} vs declared ${JSON.stringify(w)}`,
        );
      haveCols.delete(w.key);
    }
    for (const extra of haveCols.values()) diffs.push(`${dialect} ${want.name}.${extra.name}: not declared`);
    for (const part of ['primaryKey', 'indexes', 'foreignKeys'] as const)
      if (JSON.stringify(have[part]) !== JSON.stringify(want[part]))
        diffs.push(
          `${dialect} ${want.name} ${part}: [${have[part].join(' ')}] vs declared [${want[part].join(' ')}]`,
        );
  }
  return diffs;
}

describe('the one declaration of the tables', () => {
  it.each(['sqlite', 'pg'] as const)(
    'the checked-in %s tables are what the declaration renders',
    async (d) => {
      const checkedIn = fs.readFileSync(path.join(root, RENDERED_FILES[d]), 'utf8');
      expect(checkedIn, 'run `npm run db:generate` after changing db/tables/declaration.ts').toBe(
        await formattedTables(d, root),
      );
    },
  );

  it('SQLite and PostgreSQL tables match the declaration, column by column', () => {
    expect(differences(DECLARED, sqliteSchema, 'sqlite')).toEqual([]);
    expect(differences(DECLARED, pgSchema, 'pg')).toEqual([]);
  });

  it('names a table that drifted from the declaration', () => {
    const balancers = TABLES.balancers;
    const drifted: Record<string, TableDecl> = {
      ...TABLES,
      balancers: {
        ...balancers,
        columns: { ...balancers.columns, note: { name: 'note', kind: 'text' } },
        indexes: [{ name: 'balancers_name', columns: ['name'] }],
      },
    };
    delete drifted.subjectClaims;
    for (const d of ['sqlite', 'pg'] as const) {
      const mod = d === 'sqlite' ? sqliteSchema : pgSchema;
      expect(differences(drifted, mod, d)).toEqual(
        expect.arrayContaining([
          `${d} balancers.note: declared, missing`,
          `${d} balancers indexes: [] vs declared [balancers_name(name)]`,
          `${d} subjectClaims: not declared`,
        ]),
      );
    }
    const retyped: Record<string, TableDecl> = {
      ...TABLES,
      nodes: { ...TABLES.nodes, columns: { ...TABLES.nodes.columns, seq: { name: 'seq', kind: 'big' } } },
    };
    expect(differences(retyped, pgSchema, 'pg')).toEqual([
      expect.stringMatching(/^pg nodes\.seq: .*"sqlType":"integer".* vs declared .*"sqlType":"bigint"/),
    ]);
  });
});
