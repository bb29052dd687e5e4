// The npm package as a user gets it: `npm pack` (prepack builds the standalone server and the CLI), the
// tarball installed with `npm install --omit=dev` into an empty folder outside the checkout, and its
// `erawatch` run from there with the image's environment: probe, serve and worker against a real v2 SDK
// server, the shipped host-check example, and the demo. The folder is laid out as the image's final stage
// is (/opt/erawatch), so this is the image test too. The tarball holds none of the build's keys and not the
// builder's path.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { freePort, pollUntil } from '../../support/wait';
import pkg from '../../../package.json';
import { CHROMIUM_ARGS } from '../../../playwright.config';

const root = path.resolve(import.meta.dirname, '../../..');
let dir = '';
let app = '';
let tarball = '';
let peer: RunningPeer | null = null;
const running = new Set<ChildProcess>();

/** What the image sets (Dockerfile: ENV, WORKDIR); nothing from this checkout or its node_modules. */
function imageEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: `${path.join(app, 'node_modules', '.bin')}:${path.dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: dir,
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    ...extra,
  };
}

interface Run {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** Starts `erawatch …` from the installed package, as the image's entry point does (found on PATH). */
function erawatch(args: string[], env: NodeJS.ProcessEnv, cwd: string): Run {
  const child = spawn('erawatch', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  return { child, output: () => out, exited };
}

async function stop(run: Run): Promise<number | null> {
  run.child.kill('SIGTERM');
  return run.exited;
}

/**
 * better-sqlite3 installs through prebuild-install, which fetches a binary for the installing Node from its
 * release host (unreachable here) before compiling for minutes. A loopback mirror serves it the binary this
 * checkout's own install built, for the same version, Node ABI and platform.
 */
async function startBinaryMirror(): Promise<{ url: string; close(): Promise<void> }> {
  const version = pkg.dependencies['better-sqlite3'];
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const file = path.join(dir, name);
  const tar = spawnSync('tar', [
    'czf',
    file,
    '-C',
    path.join(root, 'node_modules', 'better-sqlite3'),
    'build/Release/better_sqlite3.node',
  ]);
  expect(tar.status, tar.stderr.toString()).toBe(0);
  const server = http.createServer((req, res) => {
    if (req.url === `/v${version}/${name}`) fs.createReadStream(file).pipe(res);
    else res.writeHead(404).end();
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      // prebuild-install keeps what it fetched in npm's cache, named after the URL; this port's copy goes.
      const cache = spawnSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).stdout.trim();
      const fetched = `${url}/v${version}/${name}`;
      const digest = crypto.createHash('sha512').update(fetched).digest('hex').slice(0, 6);
      fs.rmSync(path.join(cache, '_prebuilds', `${digest}-${name.replace(/[^a-zA-Z0-9.]+/g, '-')}`), {
        force: true,
      });
    },
  };
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-package-'));
  // prepack builds the app only when it is stale (the browser tests' set-up may just have built it).
  const pack = spawnSync('npm', ['pack', '--pack-destination', dir], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
    maxBuffer: 64 * 2 ** 20,
  });
  expect(pack.status, pack.stderr).toBe(0);
  tarball = path.join(dir, `erawatch-${pkg.version}.tgz`);

  app = path.join(dir, 'opt', 'erawatch');
  fs.mkdirSync(app, { recursive: true });
  fs.writeFileSync(path.join(app, 'package.json'), '{ "private": true }\n');
  const mirror = await startBinaryMirror();
  try {
    // Not spawnSync: the mirror answers from this process's event loop.
    await promisify(execFile)(
      'npm',
      ['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', tarball],
      { cwd: app, env: { ...process.env, npm_config_better_sqlite3_binary_host: mirror.url } },
    );
  } finally {
    await mirror.close();
  }
  peer = await startPeer('v2-modern', { name: 'package-node', version: '2.6.0' });
}, 900_000);

afterAll(async () => {
  for (const child of running) child.kill('SIGKILL');
  await peer?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the npm package', () => {
  it('ships the built server and CLI, no source, and installs no dev dependency', () => {
    const files = spawnSync('tar', ['tzf', tarball], { encoding: 'utf8' }).stdout.split('\n');
    expect(files).toEqual(
      expect.arrayContaining([
        'package/bin/erawatch.mjs',
        'package/dist/cli/main.js',
        'package/dist/server/server.js',
        'package/db/migrations/meta/_journal.json',
      ]),
    );
    expect(files.filter((f) => /^package\/(lib|app|tests|bench|components)\//.test(f))).toEqual([]);
    // Nothing of an earlier package build inside the server (the tracer copied dist/ in when it was there).
    expect(files.filter((f) => f.startsWith('package/dist/server/dist/'))).toEqual([]);
    // The native module is installed for the Node that runs it, never shipped built for the packer's.
    expect(files.filter((f) => f.endsWith('.node'))).toEqual([]);
    const installed = fs.readdirSync(path.join(app, 'node_modules'));
    expect(installed).toEqual(expect.arrayContaining(['erawatch', 'better-sqlite3', 'zod']));
    for (const dev of ['next', 'react', 'tsx', 'typescript', 'vitest', '@playwright', 'eslint', 'esbuild'])
      expect(installed).not.toContain(dev);
  });

  it("holds none of the build's keys, and not the builder's path", () => {
    const unpacked = path.join(dir, 'unpacked');
    fs.mkdirSync(unpacked, { recursive: true });
    const tar = spawnSync('tar', ['xzf', tarball, '-C', unpacked]);
    expect(tar.status).toBe(0);
    // The keys of the build the package was made from (the checkout's .next).
    const props = JSON.parse(
      fs.readFileSync(path.join(root, '.next', 'server', 'preview-props.json'), 'utf8'),
    ) as Record<string, string>;
    const actions = JSON.parse(
      fs.readFileSync(path.join(root, '.next', 'server', 'server-reference-manifest.json'), 'utf8'),
    ) as { encryptionKey: string };
    const secrets = [...Object.values(props), actions.encryptionKey];
    expect(secrets.every((s) => s.length >= 32)).toBe(true);
    const holding = (needle: string) =>
      spawnSync('grep', ['-rlF', needle, unpacked], { encoding: 'utf8' }).stdout.trim();
    for (const secret of secrets) expect(holding(secret), 'a build key is in the package').toBe('');
    expect(holding(root), "the builder's path is in the package").toBe('');
  });

  it('ships what its docs run: deploy/, the host-check example and its servers', () => {
    const files = spawnSync('tar', ['tzf', tarball], { encoding: 'utf8' }).stdout.split('\n');
    expect(files).toEqual(
      expect.arrayContaining([
        'package/deploy/systemd/erawatch.service',
        'package/deploy/systemd/erawatch.env',
        'package/deploy/kubernetes/base/kustomization.yaml',
        'package/dist/examples/host.yaml',
        'package/dist/cli/servers/v2-stdio.mjs',
        'package/dist/cli/servers/v1-stdio.mjs',
      ]),
    );
  });

  it('its help lists what runs from the package and says where bench lives', () => {
    const help = spawnSync('erawatch', ['--help'], { cwd: dir, env: imageEnv(), encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^ {2}demo /m);
    expect(help.stdout).not.toMatch(/^ {2}bench /m);
    expect(help.stdout).toContain('Not in this package: the benchmarks run from a checkout of the source');
    const bench = spawnSync('erawatch', ['bench', 'probe'], { cwd: dir, env: imageEnv(), encoding: 'utf8' });
    expect(bench.status).toBe(2);
    expect(bench.stderr).toContain("'bench' is not in the installed package");
  });

  it('the shipped host-check example runs as its first line says', async () => {
    const example = path.join(app, 'node_modules', 'erawatch', 'dist', 'examples', 'host.yaml');
    expect(fs.readFileSync(example, 'utf8')).toContain('node_modules/erawatch/dist/examples/host.yaml');
    const run = erawatch(['host-check', example, '--json'], imageEnv(), app);
    expect(await run.exited, run.output()).toBe(0);
    const report = JSON.parse(run.output()) as {
      servers: Array<{ name: string; available: boolean; era: string }>;
    };
    expect(report.servers.map((s) => [s.name, s.available, s.era])).toEqual([
      ['current', true, 'modern'],
      ['archive', true, 'legacy'],
      ['slow', true, 'modern'],
    ]);
  });

  it('erawatch serve refuses a public address without a secret before the server starts', async () => {
    const run = erawatch(['serve', '--host', '0.0.0.0', '--port', String(await freePort())], imageEnv(), dir);
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain('or bind to loopback with `erawatch serve --host 127.0.0.1`');
    expect(run.output()).not.toContain('next start');
    expect(run.output()).not.toContain('Ready');
  });

  it('prints its version', () => {
    const r = spawnSync('erawatch', ['--version'], { cwd: dir, env: imageEnv(), encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${pkg.version}\n`);
  });

  it('erawatch probe decides a real v2 SDK server', async () => {
    const run = erawatch(['probe', peer?.url ?? '', '--json'], imageEnv(), dir);
    expect(await run.exited, run.output()).toBe(0);
    expect(JSON.parse(run.output())).toMatchObject({
      verdict: 'modern',
      negotiatedVersion: '2026-07-28',
      serverInfo: { name: 'package-node', version: '2.6.0' },
      initializeSent: false,
    });
  });

  // Each starts a whole server (and the demo ten MCP servers besides) on a machine other runs share.
  it('erawatch serve answers /healthz and renders the fleet; erawatch worker polls a balancer', async () => {
    const work = path.join(dir, 'var', 'lib', 'erawatch');
    fs.mkdirSync(work, { recursive: true });
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // The web process leaves polling to the worker, as the manifests run them; the store path is relative,
    // so it must land where serve was started, not inside the package.
    const storeEnv = { ERAWATCH_DB: 'erawatch.db', ERAWATCH_ALLOW_LOOPBACK: '1' };
    const web = erawatch(
      ['serve', '--host', '127.0.0.1', '--port', String(port)],
      imageEnv({ ...storeEnv, ERAWATCH_POLLER: 'off' }),
      work,
    );
    await pollUntil('serve to answer /healthz', 120_000, async () => {
      if (web.child.exitCode !== null) throw new Error(`serve exited: ${web.output()}`);
      return (await fetch(`${base}/healthz`)).ok;
    });
    expect(fs.existsSync(path.join(work, 'erawatch.db'))).toBe(true);
    // What a newcomer is told first: where to look, where the data is, whether a login is needed and why,
    // and how to register the first balancer.
    const guide = web.output();
    expect(guide).toContain(`dashboard:  ${base}`);
    expect(guide).toContain(`data:       SQLite file ${path.join(work, 'erawatch.db')}`);
    expect(guide).toContain(
      'login:      none: it listens on loopback (127.0.0.1) and no ERAWATCH_ADMIN_SECRET',
    );
    expect(guide).toContain(`curl -X POST ${base}/api/v1/balancers`);
    expect(guide.indexOf('dashboard:')).toBeLessThan(guide.indexOf('Ready'));
    // The native module the server runs is the installed package's, not the checkout's.
    const maps = fs.readFileSync(`/proc/${web.child.pid ?? 0}/maps`, 'utf8');
    const sqlite = maps.split('\n').find((l) => l.endsWith('better_sqlite3.node')) ?? '';
    expect(sqlite).toContain(path.join(app, 'node_modules', 'better-sqlite3'));

    // The image's HEALTHCHECK, run as Docker runs it.
    const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    const healthcheck = JSON.parse(
      /HEALTHCHECK[^\n]*\\\n\s*CMD (\[.*\])/.exec(dockerfile)?.[1] ?? '[]',
    ) as string[];
    const check = () =>
      spawnSync(healthcheck[0] ?? 'false', healthcheck.slice(1), {
        env: imageEnv({ PORT: String(port) }),
        timeout: 60_000,
      }).status;
    expect(check()).toBe(0);

    const html = await (await fetch(base)).text();
    expect(html).toContain('<h1>Fleet</h1>');
    const origin = { 'content-type': 'application/json', origin: base };
    const created = await fetch(`${base}/api/v1/balancers`, {
      method: 'POST',
      headers: origin,
      body: JSON.stringify({
        name: 'package-fleet',
        publicUrl: peer?.url,
        nodeUrls: [peer?.url],
        samplesPerCycle: 0,
      }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const { id } = (await created.json()) as { id: string };
    // No poll worker anywhere yet: the web process says it is not ready.
    expect((await fetch(`${base}/readyz`)).status).toBe(503);

    const worker = erawatch(['worker', '--roles', 'poll'], imageEnv(storeEnv), work);
    const nodes = await pollUntil('the worker to probe the balancer', 120_000, async () => {
      if (worker.child.exitCode !== null) throw new Error(`worker exited: ${worker.output()}`);
      const body = (await (await fetch(`${base}/api/v1/balancers/${id}/nodes`)).json()) as {
        items: unknown[];
      };
      return JSON.stringify(body.items).includes('"modern"') ? body.items : null;
    });
    expect(JSON.stringify(nodes)).toContain('2026-07-28');
    expect((await fetch(`${base}/readyz`)).status).toBe(200);

    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: CHROMIUM_ARGS,
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(base);
      await page.getByRole('link', { name: 'package-fleet' }).first().waitFor();
      const shots = path.join(root, 'test-results', 'screenshots');
      fs.mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: path.join(shots, 'package-serve.png') });
    } finally {
      await browser.close();
    }

    expect(await stop(worker), worker.output()).toBe(0);
    expect(worker.output()).toContain('[worker] stopped');
    // As `next start`: 128 + the signal's number.
    expect(await stop(web), web.output()).toBe(143);
    expect(check()).toBe(1);
  }, 300_000);

  it('erawatch demo runs from the package: its fleet, its server, its three balancers', async () => {
    const work = path.join(dir, 'demo');
    fs.mkdirSync(work, { recursive: true });
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const demo = erawatch(
      ['demo', '--port', String(port), '--base-port', '0', '--no-rollout'],
      imageEnv(),
      work,
    );
    const names = await pollUntil('the demo balancers to have their first cycle', 240_000, async () => {
      if (demo.child.exitCode !== null) throw new Error(`demo exited: ${demo.output()}`);
      const body = (await (await fetch(`${base}/api/v1/balancers`)).json()) as {
        items: Array<{ name: string; summary: { analyzedAt: number | null } | null }>;
      };
      const done = body.items.filter((b) => b.summary?.analyzedAt);
      return done.length === 3 ? done.map((b) => b.name).sort() : null;
    });
    expect(names).toEqual(['demo-billing', 'demo-orders', 'demo-search']);
    expect(demo.output()).not.toContain('Building the dashboard');
    expect(demo.output()).not.toContain('does not work with "output: standalone"');
    expect(fs.existsSync(path.join(work, 'data', 'demo.db'))).toBe(true);
    demo.child.kill('SIGINT');
    expect(await demo.exited, demo.output()).toBe(0);
    expect(demo.output()).toContain('Stopped the dashboard and every demo server.');
  }, 300_000);
});
