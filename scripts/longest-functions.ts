// The longest functions under a folder (default lib/), by source lines, read with the TypeScript AST: every
// function declaration, method, accessor, constructor, function expression and arrow function counts, nested
// ones on their own as well as inside their parent. Usage: tsx scripts/longest-functions.ts [dir] [count].
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface FunctionLength {
  file: string;
  name: string;
  line: number;
  lines: number;
}

function nameOf(node: ts.Node, sf: ts.SourceFile): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name) return named.name.getText(sf);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(sf);
  if (ts.isCallExpression(parent)) return `${parent.expression.getText(sf).slice(0, 40)}(…)`;
  return '(anonymous)';
}

/** Every function of one file with its length in lines (first line to last, inclusive). */
export function functionLengths(file: string, text = fs.readFileSync(file, 'utf8')): FunctionLength[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: FunctionLength[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      out.push({ file, name: nameOf(node, sf), line: start + 1, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** The .ts and .tsx files under `dir`, generated files (`*.generated.ts`) left out. */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(p));
    else if (/\.tsx?$/.test(entry.name) && !/\.d\.ts$|\.generated\.tsx?$/.test(entry.name)) out.push(p);
  }
  return out.sort();
}

export function longestFunctions(dir: string, count: number): FunctionLength[] {
  return sourceFiles(dir)
    .flatMap((f) => functionLengths(f))
    .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file))
    .slice(0, count);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const dir = process.argv[2] ?? 'lib';
  const count = Number(process.argv[3] ?? 10);
  for (const f of longestFunctions(dir, count))
    console.log(`${String(f.lines).padStart(5)}  ${f.file}:${f.line}  ${f.name}`);
}
