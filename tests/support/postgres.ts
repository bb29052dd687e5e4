// Debian's PostgreSQL 15 for the tests: a throwaway cluster in a temp directory on a free loopback port (one
// per vitest run, started by the first file that asks and stopped by PID in the global teardown), and a fresh
// database per test file. PostgreSQL refuses to run as root, so the cluster runs as the `postgres` user.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { describe, inject, it } from 'vitest';
import { freePort, pollUntil } from './wait';

export const PG_BIN_DIR = process.env.ERAWATCH_PG_BIN ?? '/usr/lib/postgresql/15/bin';
export const PG_PACKAGE_HINT = 'apt-get install -y postgresql';
const PG_USER = 'postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's directory where the first file that needs PostgreSQL starts the shared cluster. */
    pgRunDir: string;
  }
}

/** Why the PostgreSQL tests cannot run here, or null when the binaries are present. */
export function postgresMissing(): string | null {
  for (const bin of ['initdb', 'pg_ctl', 'postgres', 'pg_isready']) {
    if (!fs.existsSync(path.join(PG_BIN_DIR, bin)))
      return `PostgreSQL 15 is not installed (no ${path.join(PG_BIN_DIR, bin)}): ${PG_PACKAGE_HINT}`;
  }
  if (process.getuid?.() === 0 && spawnSync('id', ['-u', PG_USER]).status !== 0)
    return `there is no ${PG_USER} user to run PostgreSQL as (it refuses root): ${PG_PACKAGE_HINT}`;
  return null;
}

/**
 * `describe` for tests that need PostgreSQL. Without the binaries they are skipped with a printed reason,
 * except under CI=true, where one test fails naming the package: never skipped silently in CI.
 */
export function describePostgres(name: string, body: () => void): void {
  const missing = postgresMissing();
  if (!missing) {
    describe(name, body);
    return;
  }
  if (process.env.CI === 'true') {
    describe(name, () => {
      it('needs PostgreSQL 15', () => {
        throw new Error(missing);
      });
    });
    return;
  }
  console.warn(`skipping "${name}": ${missing}`);
  describe.skip(name, body);
}

export interface Cluster {
  host: string;
  port: number;
  /** The superuser's password (TCP connections need it; the unix socket in `dir` trusts local users). */
  password: string;
  /** The postmaster's PID, from its own postmaster.pid. */
  pid: number;
  dir: string;
  /** A `postgres://` URL for `database` as the superuser. */
  url(database?: string): string;
}

interface ClusterFile {
  host: string;
  port: number;
  password: string;
  pid: number;
  dir: string;
}

function asPostgresUser(bin: string, args: string[], timeoutMs: number): { code: number; output: string } {
  const asRoot = process.getuid?.() === 0;
  const cmd = asRoot ? 'runuser' : path.join(PG_BIN_DIR, bin);
  const argv = asRoot ? ['-u', PG_USER, '--', path.join(PG_BIN_DIR, bin), ...args] : args;
  const run = spawnSync(cmd, argv, { encoding: 'utf8', timeout: timeoutMs });
  if (run.error) throw run.error;
  return { code: run.status ?? 1, output: `${run.stdout}${run.stderr}` };
}

function withUrl(c: ClusterFile): Cluster {
  return {
    ...c,
    url: (database = 'postgres') =>
      `postgres://${PG_USER}:${encodeURIComponent(c.password)}@${c.host}:${c.port}/${database}?sslmode=disable`,
  };
}

/** initdb + pg_ctl start in a fresh temp directory (owned by the postgres user), ready to accept connections. */
export async function startCluster(): Promise<Cluster> {
  const missing = postgresMissing();
  if (missing) throw new Error(missing);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-pg-'));
  const data = path.join(dir, 'data');
  const password = crypto.randomBytes(12).toString('hex');
  const pwfile = path.join(dir, 'pwfile');
  fs.writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (process.getuid?.() === 0) {
    const uid = Number(spawnSync('id', ['-u', PG_USER], { encoding: 'utf8' }).stdout.trim());
    const gid = Number(spawnSync('id', ['-g', PG_USER], { encoding: 'utf8' }).stdout.trim());
    fs.chownSync(dir, uid, gid);
    fs.chownSync(pwfile, uid, gid);
  }
  const init = asPostgresUser(
    'initdb',
    ['-D', data, '-U', PG_USER, `--pwfile=${pwfile}`, '--auth-local=trust', '--auth-host=scram-sha-256'],
    120_000,
  );
  if (init.code !== 0) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed:\n${init.output}`);
  }
  fs.rmSync(pwfile);
  const host = '127.0.0.1';
  // A port free a moment ago can be taken before the postmaster binds it: try a few.
  let lastOutput = '';
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const port = await freePort(host);
    // Durability is pointless for a throwaway cluster; turning it off keeps the tests' CPU and disk low.
    const settings = [
      `-p ${port}`,
      `-k ${dir}`,
      `-c listen_addresses=${host}`,
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c max_connections=300',
    ].join(' ');
    const start = asPostgresUser(
      'pg_ctl',
      ['start', '-D', data, '-w', '-t', '120', '-l', path.join(dir, 'server.log'), '-o', settings],
      150_000,
    );
    const pid = readPostmasterPid(data);
    if (start.code === 0 && pid !== null) {
      const cluster = withUrl({ host, port, password, pid, dir });
      try {
        await waitReady(cluster);
      } catch (err) {
        await stopCluster(cluster);
        throw err;
      }
      return cluster;
    }
    if (pid !== null) await stopCluster({ pid, dir: '' });
    lastOutput = `${start.output}\n${readLog(dir)}`;
  }
  fs.rmSync(dir, { recursive: true, force: true });
  throw new Error(`PostgreSQL did not start:\n${lastOutput}`);
}

function readLog(dir: string): string {
  try {
    return fs.readFileSync(path.join(dir, 'server.log'), 'utf8').slice(-4000);
  } catch {
    return '';
  }
}

function readPostmasterPid(data: string): number | null {
  try {
    const pid = Number(fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

async function waitReady(cluster: Cluster): Promise<void> {
  await pollUntil(
    'PostgreSQL to accept connections',
    60_000,
    () =>
      spawnSync(path.join(PG_BIN_DIR, 'pg_isready'), ['-h', cluster.host, '-p', String(cluster.port)], {
        timeout: 10_000,
      }).status === 0,
    { everyMs: 100 },
  );
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Fast shutdown of the postmaster by its PID (SIGKILL if it lingers), then removes the directory. */
export async function stopCluster(cluster: Pick<Cluster, 'pid' | 'dir'>): Promise<void> {
  if (alive(cluster.pid)) {
    process.kill(cluster.pid, 'SIGINT');
    try {
      await pollUntil('PostgreSQL to shut down', 30_000, () => !alive(cluster.pid), { everyMs: 50 });
    } catch {
      if (alive(cluster.pid)) process.kill(cluster.pid, 'SIGKILL');
    }
  }
  if (cluster.dir) fs.rmSync(cluster.dir, { recursive: true, force: true });
}

const CLUSTER_FILE = 'cluster.json';
const FAILED_FILE = 'failed.txt';

/** The run's directory published by the global setup, or null when this file runs without it. */
function runDir(): string | null {
  try {
    return inject('pgRunDir') || null;
  } catch {
    return null;
  }
}

let privateCluster: Promise<Cluster> | null = null;

/**
 * The run's one cluster: the first file to ask starts it (others wait for its cluster.json) and the global
 * teardown stops it. Without the global setup, a cluster private to this file (stop it with `stopSharedCluster`).
 */
export async function sharedCluster(): Promise<Cluster> {
  const dir = runDir();
  if (!dir) {
    privateCluster ??= startCluster();
    return privateCluster;
  }
  const file = path.join(dir, CLUSTER_FILE);
  const failed = path.join(dir, FAILED_FILE);
  let starter = false;
  try {
    fs.mkdirSync(path.join(dir, 'lock'));
    starter = true;
  } catch {
    // another file is starting it, or has started it
  }
  if (starter) {
    try {
      const cluster = await startCluster();
      const tmp = `${file}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify({ ...cluster, url: undefined }), { mode: 0o600 });
      fs.renameSync(tmp, file);
      return cluster;
    } catch (err) {
      fs.writeFileSync(failed, err instanceof Error ? err.message : String(err));
      throw err;
    }
  }
  return pollUntil(
    'the shared PostgreSQL cluster',
    180_000,
    () => {
      if (fs.existsSync(failed)) throw new Error(fs.readFileSync(failed, 'utf8'));
      if (!fs.existsSync(file)) return null;
      return withUrl(JSON.parse(fs.readFileSync(file, 'utf8')) as ClusterFile);
    },
    { everyMs: 100 },
  );
}

/** Stops a cluster this file started for itself (no-op under the global setup, whose teardown stops it). */
export async function stopSharedCluster(): Promise<void> {
  if (!privateCluster) return;
  const cluster = await privateCluster.catch(() => null);
  privateCluster = null;
  if (cluster) await stopCluster(cluster);
}

/** The global teardown's half: stops the run's cluster if a file started one. */
export async function stopRunCluster(dir: string): Promise<void> {
  const file = path.join(dir, CLUSTER_FILE);
  if (fs.existsSync(file)) {
    const cluster = JSON.parse(fs.readFileSync(file, 'utf8')) as ClusterFile;
    await stopCluster(cluster);
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

let counter = 0;

/** A new, empty database in the run's cluster, named after `name` (made unique); returns its URL (no password). */
export async function createDatabase(name: string): Promise<string> {
  const cluster = await sharedCluster();
  counter += 1;
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 40);
  const database = `t_${slug}_${process.pid}_${counter}`;
  const admin = postgres(cluster.url(), { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE "${database}"`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  // Children spawned by a test (a worker, a poller) get the URL as their ERAWATCH_DB, or the store's printed
  // location, which has no password: libpq's PGPASSWORD, inherited, supplies it to both.
  process.env.PGPASSWORD = cluster.password;
  return `postgres://${PG_USER}@${cluster.host}:${cluster.port}/${database}`;
}
