// What the npm package ships, built before `npm pack` (prepack) so that installing it builds nothing: the
// dashboard as the standalone Next.js server in dist/server, and the CLI compiled to JavaScript in dist/cli.
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { build, type Metafile, type Plugin } from 'esbuild';
import { SERVER_DIR } from '@/lib/cli/package-root';
import { scrubBuildSecrets } from '@/lib/cli/server-secrets';
import { ensureNextBuild, STATIC_STAMP } from '@/lib/demo/next-app';

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
  // A demo run in this checkout may have copied the assets in already, and noted which build's they are;
  // a build made while an earlier package build lay in dist/ may have traced it in.
  fs.rmSync(path.join(out, STATIC_STAMP), { force: true });
  fs.rmSync(path.join(out, 'dist'), { recursive: true, force: true });
  // The standalone output leaves the browser assets and public/ to the deployer.
  fs.cpSync(path.join(root, '.next', 'static'), path.join(out, '.next', 'static'), { recursive: true });
  fs.cpSync(path.join(root, 'public'), path.join(out, 'public'), { recursive: true });
  replaceAliasLinks(path.join(out, '.next', 'node_modules'));
  // Every install makes its own keys at start (lib/cli/server-secrets.ts); none ships.
  say(`per-build keys taken out of ${scrubBuildSecrets(out).join(', ')}`);
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

/** Every file under `dir` (symlinks are not followed). */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(dir, f))
    .filter((f) => fs.lstatSync(f).isFile());
}

/**
 * The builder's absolute path (the checkout's folder, in the standalone config and its required-files list)
 * is replaced by `.`: the standalone server does not read it, and it says nothing about the installing machine.
 * Throws when any file still holds it.
 */
function scrubBuildPath(dir: string): string[] {
  const changed: string[] = [];
  for (const file of filesUnder(dir)) {
    const text = fs.readFileSync(file, 'latin1');
    if (!text.includes(root)) continue;
    fs.writeFileSync(file, text.replaceAll(`"${root}"`, '"."').replaceAll(`${root}/`, './'), 'latin1');
    changed.push(path.relative(dir, file));
  }
  const left = filesUnder(dir).filter((f) => fs.readFileSync(f, 'latin1').includes(root));
  if (left.length > 0) throw new Error(`the build path ${root} is still in ${left.join(', ')}`);
  return changed;
}

// bench builds from the source tree and uses dev tools; in the package it says it is not there (and the
// package's help leaves it out). demo runs from the package: its server is dist/server, its fleet the MCP
// servers bundled below.
const checkoutOnly: Plugin = {
  name: 'checkout-only-commands',
  setup(b) {
    b.onResolve({ filter: /^\.\/commands\/bench$/ }, (args) => ({
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

/**
 * The real MCP SDK servers the demo fleet and the host-check example run, each bundled into one file with
 * the SDK it uses (a dev dependency), beside the compiled CLI: lib/peers/spawn.ts finds them in `servers/`
 * next to itself, in the checkout and in the package alike.
 */
const SHIPPED_SERVERS = ['v2-http.mjs', 'v1-http.mjs', 'v2-stdio.mjs', 'v1-stdio.mjs'];

async function buildServers(): Promise<void> {
  const outdir = path.join(root, 'dist', 'cli', 'servers');
  await build({
    absWorkingDir: root,
    entryPoints: SHIPPED_SERVERS.map((f) => path.join('lib', 'peers', 'servers', f)),
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    // express and its friends are CommonJS and require Node's modules at run time.
    banner: {
      js: "import { createRequire as __erawatchRequire } from 'node:module'; const require = __erawatchRequire(import.meta.url);",
    },
  });
}

/**
 * The host-check example as the package runs it: the same file as examples/host.yaml, its servers the
 * bundled ones (relative paths in it are resolved against its own folder).
 */
function writeExample(): void {
  const source = fs.readFileSync(path.join(root, 'examples', 'host.yaml'), 'utf8');
  const shipped = source
    .replaceAll('../lib/peers/servers/', '../cli/servers/')
    .replace(
      /^#\s+npx erawatch host-check examples\/host\.yaml[^\n]*\n(#\s+dist\/examples\/[^\n]*\n)?/m,
      '#   erawatch host-check "$(npm root -g)/erawatch/dist/examples/host.yaml" [--json]   (installed with -g)\n' +
        '#   npx erawatch host-check node_modules/erawatch/dist/examples/host.yaml [--json]  (installed in a project)\n',
    );
  const servers = [...shipped.matchAll(/\.\.\/cli\/servers\/([\w-]+\.mjs)/g)].map((m) => m[1] ?? '');
  const missing = servers.filter((f) => !SHIPPED_SERVERS.includes(f));
  if (servers.length === 0 || missing.length > 0)
    throw new Error(`examples/host.yaml runs servers the package does not ship: ${missing.join(', ')}`);
  fs.mkdirSync(path.join(root, 'dist', 'examples'), { recursive: true });
  fs.writeFileSync(path.join(root, 'dist', 'examples', 'host.yaml'), shipped);
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
await buildServers();
writeExample();
say(`build path taken out of ${scrubBuildPath(path.join(root, 'dist')).join(', ') || 'nothing'}`);
say(`${SERVER_DIR}, dist/cli (with its MCP servers) and dist/examples are ready`);
