// What the npm package ships, built before `npm pack` (prepack) so that installing it builds nothing: the
// dashboard as the standalone Next.js server in dist/server, and the CLI compiled to JavaScript in dist/cli.
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { build, type Metafile, type Plugin } from 'esbuild';
import { SERVER_DIR } from '@/lib/cli/package-root';
import { ensureNextBuild } from '@/lib/demo/next-app';

const root = path.resolve(import.meta.dirname, '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};
const say = (line: string) => process.stdout.write(`build-package: ${line}\n`);

/** The package folders under a node_modules folder, scoped ones included. */
function packagesIn(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .flatMap((name) =>
      name.startsWith('@')
        ? fs.readdirSync(path.join(dir, name)).map((sub) => `${name}/${sub}`)
        : name.startsWith('.')
          ? []
          : [name],
    );
}

function holdsNativeCode(dir: string): boolean {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).some((file) => file.endsWith('.node'));
}

/**
 * Turbopack names each server-external package by a hashed alias, a symlink in .next/node_modules. npm pack
 * drops symlinks, so each becomes a one-line package that requires the real one by its name.
 */
function replaceAliasLinks(dir: string): void {
  for (const alias of packagesIn(dir)) {
    const link = path.join(dir, alias);
    if (!fs.lstatSync(link).isSymbolicLink()) continue;
    const target = fs.readlinkSync(link).split('node_modules/').pop() ?? '';
    fs.rmSync(link);
    fs.mkdirSync(link, { recursive: true });
    fs.writeFileSync(
      path.join(link, 'package.json'),
      `${JSON.stringify({ name: alias, main: 'index.js' })}\n`,
    );
    fs.writeFileSync(path.join(link, 'index.js'), `module.exports = require(${JSON.stringify(target)});\n`);
  }
}

function assembleServer(): void {
  const standalone = path.join(root, '.next', 'standalone');
  if (!fs.existsSync(path.join(standalone, 'server.js')))
    throw new Error(`${standalone}/server.js is missing: next.config.ts must keep output: 'standalone'`);
  const out = path.join(root, SERVER_DIR);
  fs.rmSync(out, { recursive: true, force: true });
  fs.cpSync(standalone, out, { recursive: true, verbatimSymlinks: true });
  // The standalone output leaves the browser assets and public/ to the deployer.
  fs.cpSync(path.join(root, '.next', 'static'), path.join(out, '.next', 'static'), { recursive: true });
  fs.cpSync(path.join(root, 'public'), path.join(out, 'public'), { recursive: true });
  replaceAliasLinks(path.join(out, '.next', 'node_modules'));
  // The tracer copies whole folders the server reads from; of db/ and lib/ it needs only the migrations.
  for (const file of fs.readdirSync(out, { recursive: true, encoding: 'utf8' })) {
    const top = file.split(path.sep)[0];
    const wanted = file.endsWith('.sql') || file.endsWith('_journal.json');
    if ((top === 'db' || top === 'lib') && !wanted && fs.statSync(path.join(out, file)).isFile())
      fs.rmSync(path.join(out, file));
  }
  // A native module was built for this machine's Node; the package's own dependency is built (or fetched)
  // for the Node that installs it, and the server finds it up the folder tree.
  const modules = path.join(out, 'node_modules');
  for (const name of packagesIn(modules)) {
    if (!holdsNativeCode(path.join(modules, name))) continue;
    if (!pkg.dependencies[name]) throw new Error(`the server needs native ${name}: add it to dependencies`);
    fs.rmSync(path.join(modules, name), { recursive: true });
  }
}

// demo and bench build from the source tree and use dev tools; in the package they say they are not there.
const checkoutOnly: Plugin = {
  name: 'checkout-only-commands',
  setup(b) {
    b.onResolve({ filter: /^\.\/commands\/(demo|bench)$/ }, (args) => ({
      path: `${args.path}.js`,
      external: true,
    }));
  },
};

/** Every package the compiled CLI imports must install with it. */
function undeclaredImports(meta: Metafile): string[] {
  const builtins = new Set(builtinModules);
  const missing = new Set<string>();
  for (const output of Object.values(meta.outputs)) {
    for (const imp of output.imports) {
      if (!imp.external || imp.path.startsWith('.') || imp.path.startsWith('node:')) continue;
      const parts = imp.path.split('/');
      const name = imp.path.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? '');
      if (!builtins.has(name) && !pkg.dependencies[name]) missing.add(name);
    }
  }
  return [...missing].sort();
}

async function buildCli(): Promise<void> {
  const outdir = path.join(root, 'dist', 'cli');
  fs.rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: { main: 'lib/cli/main.ts' },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    packages: 'external',
    tsconfig: 'tsconfig.json',
    metafile: true,
    logLevel: 'warning',
    plugins: [checkoutOnly],
  });
  const missing = undeclaredImports(result.metafile);
  if (missing.length > 0)
    throw new Error(`the CLI imports packages missing from dependencies: ${missing.join(', ')}`);
}

if (await ensureNextBuild(root, say)) say('built the app');
assembleServer();
await buildCli();
say(`${SERVER_DIR} and dist/cli are ready`);
