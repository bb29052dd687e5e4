// The product's import graph as the TypeScript resolver sees it (tsconfig's paths, relative imports, export …
// from, import() and require() with a literal specifier, type-only imports too), checked against the layer table
// of docs/architecture.md: an arrow the table forbids, a cycle between folders and a file in no layer are each
// reported. tests/unit/lint/import-graph.test.ts runs it on the tree; `tsx scripts/import-graph.ts` prints it.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** What the graph covers: the product's folders and its root files. */
export const GRAPH_ROOTS = [
  'lib',
  'db',
  'app',
  'components',
  'bin',
  'scripts',
  'bench',
  'proxy.ts',
  'instrumentation.ts',
];

const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const SKIP_DIRS = new Set(['node_modules', '.next', 'dist', 'migrations', 'migrations-pg']);

export interface Edge {
  from: string;
  to: string;
  /** The specifier as written. */
  specifier: string;
  line: number;
}

/** Every source file under the roots, relative to `root`, with forward slashes. */
export function listFiles(root: string, roots: readonly string[] = GRAPH_ROOTS): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    const abs = path.join(root, rel);
    if (!fs.existsSync(abs)) return;
    const stat = fs.statSync(abs);
    if (stat.isDirectory()) {
      for (const entry of fs.readdirSync(abs)) if (!SKIP_DIRS.has(entry)) walk(path.posix.join(rel, entry));
    } else if (SOURCE.test(rel) && !rel.endsWith('.d.ts')) out.push(rel);
  };
  for (const r of roots) walk(r);
  return out.sort();
}

/** The literal module specifiers of one file with their lines: static, re-export, import(), require(). */
export function specifiersOf(file: string, text: string): Array<{ specifier: string; line: number }> {
  const kind = /\.tsx$/.test(file)
    ? ts.ScriptKind.TSX
    : /\.(m|c)?js$/.test(file)
      ? ts.ScriptKind.JS
      : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const out: Array<{ specifier: string; line: number }> = [];
  const add = (node: ts.Node, lit: ts.Expression | undefined) => {
    if (lit && ts.isStringLiteralLike(lit))
      out.push({ specifier: lit.text, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1 });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node, node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      add(node, node.moduleReference.expression);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument))
      add(node, node.argument.literal);
    else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const dynamic = callee.kind === ts.SyntaxKind.ImportKeyword;
      const required = ts.isIdentifier(callee) && callee.text === 'require';
      if ((dynamic || required) && node.arguments.length >= 1) add(node, node.arguments[0]);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** The compiler options of the tsconfig at `root` (its paths included), for the resolver. */
export function compilerOptionsAt(root: string): ts.CompilerOptions {
  const configPath = path.join(root, 'tsconfig.json');
  const read = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  return ts.parseJsonConfigFileContent(read.config, ts.sys, root, undefined, configPath).options;
}

/**
 * The arrows between the files under `root`: each literal specifier resolved with the TypeScript resolver;
 * a package (node_modules) or a node: builtin is no arrow. `extra` files (path → text) stand in for files on
 * disk or are added to them (a test injects an import this way).
 */
export function buildGraph(
  root: string,
  opts: { files?: readonly string[]; extra?: Readonly<Record<string, string>> } = {},
): { files: string[]; edges: Edge[]; unresolved: Edge[] } {
  const options = compilerOptionsAt(root);
  const extra = opts.extra ?? {};
  const files = [...new Set([...(opts.files ?? listFiles(root)), ...Object.keys(extra)])].sort();
  const host: ts.ModuleResolutionHost = {
    fileExists: (p) => {
      const rel = path.relative(root, p).split(path.sep).join('/');
      return rel in extra || ts.sys.fileExists(p);
    },
    readFile: (p) => ts.sys.readFile(p),
    directoryExists: (p) => ts.sys.directoryExists?.(p) ?? true,
    realpath: (p) => p,
    getCurrentDirectory: () => root,
  };
  const cache = ts.createModuleResolutionCache(root, (f) => f, options);
  const edges: Edge[] = [];
  const unresolved: Edge[] = [];
  for (const from of files) {
    const text = extra[from] ?? fs.readFileSync(path.join(root, from), 'utf8');
    for (const { specifier, line } of specifiersOf(from, text)) {
      if (specifier.startsWith('node:')) continue;
      const resolved = ts.resolveModuleName(
        specifier,
        path.join(root, from),
        options,
        host,
        cache,
      ).resolvedModule;
      if (!resolved) {
        if (specifier.startsWith('.') || specifier.startsWith('@/'))
          unresolved.push({ from, to: '', specifier, line });
        continue;
      }
      if (resolved.isExternalLibraryImport || resolved.resolvedFileName.includes('/node_modules/')) continue;
      const to = path.relative(root, resolved.resolvedFileName).split(path.sep).join('/');
      if (to.startsWith('..')) continue;
      edges.push({ from, to, specifier, line });
    }
  }
  return { files, edges, unresolved };
}

/** One row of the layer table: a layer, the folders and files it holds, the layers it may import. */
export interface Layer {
  name: string;
  /** Folders end in `/` (everything under them), files do not; a file belongs to its longest match. */
  where: string[];
  mayImport: string[];
}

/** One refused arrow inside what the layers allow: files under `from` must not import files under `to`. */
export interface Refusal {
  from: string[];
  to: string[];
  why: string;
}

export interface LayerTable {
  layers: Layer[];
  refusals: Refusal[];
}

const EVERY_LAYER = 'every layer';

function tableRows(markdown: string, heading: string): string[][] {
  const at = markdown.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`docs/architecture.md has no "${heading}" section`);
  const lines = markdown.slice(at + heading.length + 2).split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(start)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim()),
    );
  }
  // The header row and the |---| row.
  return rows.slice(2);
}

const codeSpans = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
const names = (cell: string) =>
  cell
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * The layer table and the refused arrows as docs/architecture.md states them: its "## Layers" table (columns
 * layer, where, may import, …) and its "### Refused arrows" table (columns from, must not import, why).
 */
export function parseLayerTable(markdown: string): LayerTable {
  const layers = tableRows(markdown, '## Layers').map(([name = '', where = '', may = '']) => ({
    name,
    where: codeSpans(where),
    mayImport: names(may),
  }));
  const refusals = tableRows(markdown, '### Refused arrows').map(([from = '', to = '', why = '']) => ({
    from: codeSpans(from),
    to: codeSpans(to),
    why,
  }));
  return { layers, refusals };
}

const covers = (entry: string, file: string) =>
  entry.endsWith('/') ? file.startsWith(entry) : file === entry;

/** The table entry (folder or file) a file belongs to: the longest that covers it, or null. */
export function unitOf(table: LayerTable, file: string): { unit: string; layer: Layer } | null {
  let best: { unit: string; layer: Layer } | null = null;
  for (const layer of table.layers)
    for (const entry of layer.where)
      if (covers(entry, file) && (!best || entry.length > best.unit.length)) best = { unit: entry, layer };
  return best;
}

export interface GraphProblems {
  /** Reads of this process's settings below the entry points (see settingsReads). */
  settingsReads: string[];
  /** Arrows the layer table or a refusal forbids, as `from:line -> to (why)`. */
  forbidden: string[];
  /** Cycles between the table's folders and files, each as its members joined by ` -> `. */
  cycles: string[];
  /** Files that no layer holds. */
  unlayered: string[];
}

/** Checks the graph against the table: forbidden arrows, cycles between the table's entries, files in no layer. */
export function checkGraph(
  graph: { files: readonly string[]; edges: readonly Edge[] },
  table: LayerTable,
): GraphProblems {
  const known = new Set(table.layers.map((l) => l.name));
  for (const l of table.layers)
    for (const m of l.mayImport)
      if (m !== EVERY_LAYER && !known.has(m))
        throw new Error(`layer ${l.name} may import an unknown layer: ${m}`);
  const unlayered = graph.files.filter((f) => !unitOf(table, f));
  const forbidden: string[] = [];
  const unitEdges = new Map<string, Set<string>>();
  for (const e of graph.edges) {
    const from = unitOf(table, e.from);
    const to = unitOf(table, e.to);
    if (!from || !to) continue;
    const at = `${e.from}:${e.line} -> ${e.to}`;
    const allowed =
      from.layer === to.layer ||
      from.layer.mayImport.includes(EVERY_LAYER) ||
      from.layer.mayImport.includes(to.layer.name);
    if (!allowed) forbidden.push(`${at} (${from.layer.name} may not import ${to.layer.name})`);
    for (const r of table.refusals)
      if (r.from.some((p) => covers(p, e.from)) && r.to.some((p) => covers(p, e.to)))
        forbidden.push(`${at} (${r.why})`);
    if (from.unit !== to.unit) {
      const set = unitEdges.get(from.unit) ?? new Set<string>();
      set.add(to.unit);
      unitEdges.set(from.unit, set);
    }
  }
  return { forbidden, cycles: cyclesOf(unitEdges), unlayered, settingsReads: [] };
}

/** The strongly connected parts of more than one node (Tarjan), each sorted, as `a -> b -> …`. */
function cyclesOf(edges: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) === index.get(v)) {
      const part: string[] = [];
      for (;;) {
        const w = stack.pop();
        if (w === undefined) break;
        onStack.delete(w);
        part.push(w);
        if (w === v) break;
      }
      if (part.length > 1) out.push(part.sort().join(' -> '));
    }
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  return out.sort();
}

/** Where a process's settings may be read (processSettings()): the entry points that hand them down (a benchmark is
 * started by `erawatch bench` as a process of its own). */
export const SETTINGS_READERS = ['app/', 'proxy.ts', 'instrumentation.ts', 'lib/cli/', 'bench/'];

/**
 * The calls of `processSettings()` (this process's settings, read once) outside SETTINGS_READERS and
 * lib/settings.ts itself, as `file:line name`; a default parameter counts. Below the entry points the settings
 * are a parameter.
 */
export function settingsReads(
  root: string,
  files: readonly string[],
  extra: Readonly<Record<string, string>> = {},
): string[] {
  const readers = new Set(['processSettings']);
  const out: string[] = [];
  for (const file of files) {
    if (file === 'lib/settings.ts' || SETTINGS_READERS.some((r) => covers(r, file))) continue;
    const text = extra[file] ?? fs.readFileSync(path.join(root, file), 'utf8');
    if (![...readers].some((r) => text.includes(r))) continue;
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && readers.has(node.expression.text))
        out.push(
          `${file}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1} ${node.expression.text}()`,
        );
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out;
}

/** The tree at `root` checked against its docs/architecture.md. */
export function checkTree(root: string, extra?: Readonly<Record<string, string>>): GraphProblems {
  const table = parseLayerTable(fs.readFileSync(path.join(root, 'docs/architecture.md'), 'utf8'));
  const graph = buildGraph(root, extra ? { extra } : {});
  return { ...checkGraph(graph, table), settingsReads: settingsReads(root, graph.files, extra) };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const problems = checkTree(process.cwd());
  for (const [what, list] of Object.entries(problems)) {
    console.log(`${what}: ${list.length}`);
    for (const line of list) console.log(`  ${line}`);
  }
}
