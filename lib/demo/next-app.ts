// Builds the Next.js app when the build is missing or older than its sources, and runs the server it built as
// a child process on loopback: `next start` for the tests, the standalone server (what ships) for the demo.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { stopChild } from '@/lib/peers/spawn';
import { childEnvironment } from '@/lib/settings';

const require = createRequire(import.meta.url);

/** What the production build is made from; a change to any of them means the build is stale. */
const BUILD_INPUTS = [
  'app',
  'components',
  'lib',
  'db',
  'public',
  'instrumentation.ts',
  'middleware.ts',
  'proxy.ts',
  'next.config.ts',
  'tsconfig.json',
  'package.json',
  'package-lock.json',
];
const SKIP_DIRS = new Set(['node_modules', '.next', '.git', 'data']);
/**
 * Folders under the inputs that the app never imports (the CLI, the demo, the MCP test servers, host-check):
 * a change there does not make the build stale. tests/unit/demo/build-inputs.test.ts keeps the app off them.
 */
export const NOT_APP_INPUTS = ['lib/cli', 'lib/demo', 'lib/peers', 'lib/host-check'];

export interface BuildStatus {
  current: boolean;
  reason: string;
}

/** Newest modification time (ms) among the build inputs under `root`, and the file it belongs to. */
export function newestInput(root: string): { file: string; mtimeMs: number } | null {
  let newest: { file: string; mtimeMs: number } | null = null;
  const skipped = new Set(NOT_APP_INPUTS.map((d) => path.join(root, d)));
  const visit = (p: string) => {
    if (skipped.has(p)) return;
    let stat: fs.Stats;
    try {
      stat = fs.statSync(p);
    } catch {
      return;
    }
    if (stat.isDirectory()) {
      for (const entry of fs.readdirSync(p)) if (!SKIP_DIRS.has(entry)) visit(path.join(p, entry));
    } else if (!newest || stat.mtimeMs > newest.mtimeMs) {
      newest = { file: path.relative(root, p), mtimeMs: stat.mtimeMs };
    }
  };
  for (const input of BUILD_INPUTS) visit(path.join(root, input));
  return newest;
}

export function checkBuild(root: string): BuildStatus {
  const buildId = path.join(root, '.next', 'BUILD_ID');
  let builtAt: number;
  try {
    builtAt = fs.statSync(buildId).mtimeMs;
  } catch {
    return { current: false, reason: 'no production build yet' };
  }
  const newest = newestInput(root);
  if (newest && newest.mtimeMs > builtAt)
    return { current: false, reason: `${newest.file} changed since the last build` };
  return { current: true, reason: 'the build is newer than every source file' };
}

const BUILD_LOCK = '.next-build.lock';

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Builds the app unless the build is current, once across processes: the browser tests' set-up, the smoke
 * test and the package build may start at the same moment, and two `next build` in one .next break both.
 * A second caller waits for the lock file, then finds the build current. Resolves with whether it built.
 */
export async function ensureNextBuild(
  root: string,
  log: (line: string) => void = () => {},
): Promise<boolean> {
  const lock = path.join(root, BUILD_LOCK);
  for (;;) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = Number(fs.readFileSync(lock, 'utf8').trim());
    // A holder that died (killed mid-build) leaves its lock behind; the next caller takes it over.
    if (Number.isInteger(holder) && holder > 0 && !pidAlive(holder)) fs.rmSync(lock, { force: true });
    else await new Promise((resolve) => setTimeout(resolve, 500));
  }
  try {
    const status = checkBuild(root);
    if (status.current) return false;
    log(`building the app (${status.reason})`);
    const code = await buildNextApp(root).exited;
    if (code !== 0) throw new Error(`next build failed (exit ${code})`);
    return true;
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

function nextBin(): string {
  return require.resolve('next/dist/bin/next');
}

/** Environment shared by the build and the server: no telemetry (the demo stays on loopback). */
function nextEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return childEnvironment({ NEXT_TELEMETRY_DISABLED: '1', ...extra });
}

export interface RunningChild {
  pid: number;
  /** Resolves with the exit code (or 1 when killed by a signal). */
  exited: Promise<number>;
  stop(): Promise<void>;
}

function track(child: ChildProcess): RunningChild {
  const exited = new Promise<number>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code ?? 1));
  });
  return { pid: child.pid ?? -1, exited, stop: () => stopChild(child) };
}

export interface BuildOptions {
  /**
   * Whether the build type-checks the app (the default). The demo skips it: `npm run typecheck` is where types
   * are checked, and it is a third of a build on a busy machine (next.config.ts reads ERAWATCH_BUILD_TYPECHECK).
   */
  typecheck?: boolean;
}

/** Runs `next build` with its output on this terminal. */
export function buildNextApp(root: string, options: BuildOptions = {}): RunningChild {
  const child = spawn(process.execPath, [nextBin(), 'build'], {
    cwd: root,
    env: nextEnv({
      NODE_ENV: 'production',
      ...(options.typecheck === false ? { ERAWATCH_BUILD_TYPECHECK: 'off' } : {}),
    }),
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return track(child);
}

/** Which build's assets `prepareStandalone` copied in (the pack step leaves it out of the package). */
export const STATIC_STAMP = '.erawatch-static-build-id';

/**
 * The standalone server the build wrote (.next/standalone/server.js), made ready to run from the checkout:
 * Next.js leaves the browser assets and public/ to the deployer, so they are copied in once per build.
 * Returns the server's entry file.
 */
export function prepareStandalone(root: string): string {
  const dir = path.join(root, '.next', 'standalone');
  const entry = path.join(dir, 'server.js');
  if (!fs.existsSync(entry))
    throw new Error(`${entry} is missing: next.config.ts must keep output: 'standalone' (rebuild)`);
  const buildId = fs.readFileSync(path.join(root, '.next', 'BUILD_ID'), 'utf8');
  const stamp = path.join(dir, STATIC_STAMP);
  if (!fs.existsSync(stamp) || fs.readFileSync(stamp, 'utf8') !== buildId) {
    const assets = path.join(dir, '.next', 'static');
    fs.rmSync(assets, { recursive: true, force: true });
    fs.cpSync(path.join(root, '.next', 'static'), assets, { recursive: true });
    fs.rmSync(path.join(dir, 'public'), { recursive: true, force: true });
    fs.cpSync(path.join(root, 'public'), path.join(dir, 'public'), { recursive: true });
    fs.writeFileSync(stamp, buildId);
  }
  return entry;
}

export interface NextServer extends RunningChild {
  url: string;
  port: number;
}

export interface StartNextOptions {
  root: string;
  host: string;
  port: number;
  env: Record<string, string>;
  /** Give up when the server has not answered HTTP within this long (60 s by default). */
  readyTimeoutMs?: number;
  /** Where the server's own output goes, line by line. */
  onOutput?: (line: string) => void;
  /**
   * What Node runs instead of `next start`, and in which folder: the standalone server the build produced
   * (`[prepareStandalone(root)]`, listening on HOSTNAME and PORT), or the package's `erawatch serve`.
   */
  server?: { args: string[]; cwd: string };
}

/** Starts the server and resolves once it answers HTTP; on failure stops it and rejects with its output. */
export async function startNextServer(options: StartNextOptions): Promise<NextServer> {
  const { root, host, port } = options;
  const server = options.server;
  const child = spawn(
    process.execPath,
    server ? server.args : [nextBin(), 'start', '-H', host, '-p', String(port)],
    {
      cwd: server ? server.cwd : root,
      env: nextEnv({
        NODE_ENV: 'production',
        PORT: String(port),
        ...(server ? { HOSTNAME: host } : {}),
        ...options.env,
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const running = track(child);
  let tail = '';
  const onChunk = (chunk: Buffer) => {
    const text = chunk.toString();
    tail = (tail + text).slice(-4000);
    for (const line of text.split('\n')) if (line.trim() !== '') options.onOutput?.(line);
  };
  child.stdout?.on('data', onChunk);
  child.stderr?.on('data', onChunk);

  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  const state: { exitCode: number | null } = { exitCode: null };
  void running.exited.then((code) => {
    state.exitCode = code;
  });
  while (Date.now() < deadline) {
    if (state.exitCode !== null) throw new Error(`the server exited with code ${state.exitCode}:\n${tail}`);
    try {
      const res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(5_000) });
      await res.body?.cancel();
      return { ...running, url, port };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  }
  await running.stop();
  throw new Error(
    `the server did not answer on ${url} within ${options.readyTimeoutMs ?? 60_000} ms:\n${tail}`,
  );
}

/** True when nothing listens on host:port (we could bind it). */
export function isPortFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** `preferred` when free; otherwise, unless `strict`, the next free one of the ten after it, else any free port. */
export async function choosePort(host: string, preferred: number, strict: boolean): Promise<number> {
  if (await isPortFree(host, preferred)) return preferred;
  if (strict) throw new Error(`port ${preferred} on ${host} is in use (choose another with --port)`);
  for (let p = preferred + 1; p <= preferred + 10; p++) if (await isPortFree(host, p)) return p;
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const free = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(free));
    });
  });
}
