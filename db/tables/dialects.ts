// The dialect factory: renders the one declaration (declaration.ts) as one engine's drizzle tables. Each
// dialect says how a logical column kind is built on its engine; everything else (names, keys, indexes,
// references, docs) is the declaration's. The output is ordinary drizzle source, checked in as
// db/schema/tables.ts and db/schema-pg/tables.ts, so each engine keeps exact column types with no casts.
import { IMPORTS, TABLES, type ColumnDecl, type ColumnKind, type TableDecl } from './declaration';

export type DialectName = 'sqlite' | 'pg';

interface Dialect {
  /** drizzle's core module and its table function. */
  core: string;
  table: string;
  /** The builder call of a column kind, and the builders it needs from the core module. */
  column(kind: ColumnKind, sqlName: string, enumValues: string | null): { call: string; uses: string[] };
  /** A partial index's condition on a boolean column `t.<name>`. */
  whereTrue(column: string): string;
  /** Extra imports (module → names) the dialect's builders need. */
  extraImports(kinds: Set<ColumnKind>): Record<string, string[]>;
}

const q = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const enumOption = (e: string | null) => (e === null ? '' : `, { enum: ${e} }`);

const DIALECTS: Record<DialectName, Dialect> = {
  sqlite: {
    core: 'drizzle-orm/sqlite-core',
    table: 'sqliteTable',
    column(kind, name, enumValues) {
      switch (kind) {
        case 'text':
          return { call: `text(${q(name)}${enumOption(enumValues)})`, uses: ['text'] };
        case 'int':
        case 'big':
          return { call: `integer(${q(name)})`, uses: ['integer'] };
        case 'bool':
          return { call: `integer(${q(name)}, { mode: 'boolean' })`, uses: ['integer'] };
        case 'json':
          return { call: `text(${q(name)}, { mode: 'json' })`, uses: ['text'] };
        case 'real':
          return { call: `real(${q(name)})`, uses: ['real'] };
        case 'bytes':
          return { call: `blob(${q(name)}, { mode: 'buffer' })`, uses: ['blob'] };
        case 'serial':
          return { call: `integer(${q(name)}).primaryKey({ autoIncrement: true })`, uses: ['integer'] };
      }
    },
    whereTrue: (column) => `sql\`\${t.${column}} = 1\``,
    extraImports: () => ({}),
  },
  pg: {
    core: 'drizzle-orm/pg-core',
    table: 'pgTable',
    column(kind, name, enumValues) {
      switch (kind) {
        case 'text':
          return { call: `text(${q(name)}${enumOption(enumValues)})`, uses: ['text'] };
        case 'int':
          return { call: `integer(${q(name)})`, uses: ['integer'] };
        case 'big':
          return { call: `bigint(${q(name)}, { mode: 'number' })`, uses: ['bigint'] };
        case 'bool':
          return { call: `boolean(${q(name)})`, uses: ['boolean'] };
        case 'json':
          return { call: `jsonb(${q(name)})`, uses: ['jsonb'] };
        case 'real':
          return { call: `doublePrecision(${q(name)})`, uses: ['doublePrecision'] };
        case 'bytes':
          return { call: `bytea(${q(name)})`, uses: [] };
        case 'serial':
          return {
            call: `bigint(${q(name)}, { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity()`,
            uses: ['bigint'],
          };
      }
    },
    whereTrue: (column) => `sql\`\${t.${column}}\``,
    extraImports: (kinds): Record<string, string[]> => (kinds.has('bytes') ? { './types': ['bytea'] } : {}),
  },
};

function docComment(doc: string | undefined, indent: string): string {
  if (!doc) return '';
  const lines = doc.split('\n');
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => `${indent} * ${l}`).join('\n')}\n${indent} */\n`;
}

function defaultOf(c: ColumnDecl, dialect: DialectName): string | null {
  const d = c.default;
  if (d === undefined) return null;
  if (typeof d === 'object') return `sql\`${d.sql[dialect]}\``;
  return typeof d === 'string' ? q(d) : String(d);
}

function enumOf(c: ColumnDecl): string | null {
  if (c.enum === undefined) return null;
  return typeof c.enum === 'string' ? c.enum : `[${c.enum.map(q).join(', ')}]`;
}

function renderColumn(
  key: string,
  c: ColumnDecl,
  d: Dialect,
  dialect: DialectName,
  uses: Set<string>,
  needsSql: { value: boolean },
): string {
  const built = d.column(c.kind, c.name, enumOf(c));
  for (const u of built.uses) uses.add(u);
  let call = built.call;
  if (c.type) call += `.$type<${c.type}>()`;
  if (c.notNull) call += '.notNull()';
  const dflt = defaultOf(c, dialect);
  if (dflt !== null) {
    if (dflt.startsWith('sql`')) needsSql.value = true;
    call += `.default(${dflt})`;
  }
  if (c.primaryKey && c.kind !== 'serial') call += '.primaryKey()';
  if (c.unique) call += '.unique()';
  if (c.references) {
    const r = c.references;
    call += `.references(() => ${r.table}.${r.column}, { onDelete: '${r.onDelete}' })`;
  }
  return `${docComment(c.doc, '  ')}  ${key}: ${call},\n`;
}

function renderTable(exportName: string, t: TableDecl, d: Dialect, dialect: DialectName, uses: Set<string>) {
  const needsSql = { value: false };
  const cols = Object.entries(t.columns)
    .map(([key, c]) => renderColumn(key, c, d, dialect, uses, needsSql))
    .join('');
  const extras: string[] = [];
  if (t.primaryKey) {
    uses.add('primaryKey');
    extras.push(`primaryKey({ columns: [${t.primaryKey.map((c) => `t.${c}`).join(', ')}] })`);
  }
  for (const i of t.indexes ?? []) {
    const fn = i.unique ? 'uniqueIndex' : 'index';
    uses.add(fn);
    let e = `${fn}(${q(i.name)}).on(${i.columns.map((c) => `t.${c}`).join(', ')})`;
    if (i.whereTrue) {
      needsSql.value = true;
      e += `.where(${d.whereTrue(i.whereTrue)})`;
    }
    extras.push(`${i.doc ? `// ${i.doc}\n` : ''}${e}`);
  }
  for (const fk of t.foreignKeys ?? []) {
    uses.add('foreignKey');
    const cols = fk.columns.map((c) => `t.${c}`).join(', ');
    const foreign = fk.foreignColumns.map((c) => `${fk.table}.${c}`).join(', ');
    extras.push(
      `foreignKey({ columns: [${cols}], foreignColumns: [${foreign}] }).onDelete('${fk.onDelete}')`,
    );
  }
  uses.add(d.table);
  const body = `{\n${cols}}`;
  const extrasText = extras.length === 0 ? '' : `, (t) => [\n${extras.join(',\n')},\n]`;
  let out = `${docComment(t.doc, '')}export const ${exportName} = ${d.table}(${q(t.name)}, ${body}${extrasText});\n`;
  if (t.rowType) out += `\nexport type ${t.rowType} = typeof ${exportName}.$inferSelect;\n`;
  return { out, needsSql: needsSql.value };
}

/** Which declared names (types and enum constants) the tables use. */
function usedNames(): Set<string> {
  const names = new Set<string>();
  const words = (s: string) => s.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? [];
  for (const t of Object.values(TABLES))
    for (const c of Object.values(t.columns)) {
      if (c.type) for (const w of words(c.type)) names.add(w);
      if (typeof c.enum === 'string') names.add(c.enum);
    }
  return names;
}

/** The drizzle source of one engine's tables (unformatted: the generator runs prettier over it). */
export function renderTables(dialect: DialectName): string {
  const d = DIALECTS[dialect];
  const uses = new Set<string>();
  const kinds = new Set<ColumnKind>();
  let anySql = false;
  const parts: string[] = [];
  for (const [exportName, t] of Object.entries(TABLES)) {
    for (const c of Object.values(t.columns)) kinds.add(c.kind);
    const { out, needsSql } = renderTable(exportName, t, d, dialect, uses);
    anySql ||= needsSql;
    parts.push(out);
  }
  const used = usedNames();
  const imports: string[] = [];
  if (anySql) imports.push(`import { sql } from 'drizzle-orm';`);
  imports.push(`import { ${[...uses].sort().join(', ')} } from '${d.core}';`);
  for (const [mod, names] of Object.entries({ ...IMPORTS, ...d.extraImports(kinds) })) {
    const wanted = names.filter((n) => used.has(n.replace(/^type /, '')) || mod === './types');
    if (wanted.length > 0) imports.push(`import { ${wanted.join(', ')} } from '${mod}';`);
  }
  const header =
    `// Generated from db/tables/declaration.ts by \`npm run db:generate\` (scripts/generate-tables.ts): do not edit.\n` +
    `// The ${dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'} tables; change the declaration, then regenerate.\n`;
  return `${header}${imports.join('\n')}\n\n${parts.join('\n')}`;
}

/** Where each engine's rendered tables are checked in. */
export const RENDERED_FILES: Record<DialectName, string> = {
  sqlite: 'db/schema/tables.ts',
  pg: 'db/schema-pg/tables.ts',
};
