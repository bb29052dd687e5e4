// A throwaway PostgreSQL 15 cluster on loopback: initdb and pg_ctl in a temp directory owned by the `postgres`
// user (PostgreSQL refuses root), stopped by the postmaster's PID. The benchmarks start one directly; the
// tests share one per vitest run through tests/support/postgres.ts (tests/support/pg-cluster.ts re-exports it).
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { freePort, pollUntil } from './wait';

export const DEFAULT_PG_BIN_DIR = '/usr/lib/postgresql/15/bin';
let PG_BIN_DIR = DEFAULT_PG_BIN_DIR;

/** Where PostgreSQL's binaries are (ERAWATCH_PG_BIN, read by the caller); unset keeps the default. */
export function setPgBinDir(dir: string | undefined): void {
  PG_BIN_DIR = dir || DEFAULT_PG_BIN_DIR;
}

export function pgBinDir(): string {
  return PG_BIN_DIR;
}
export const PG_PACKAGE_HINT = 'apt-get install -y postgresql';
const PG_USER = 'postgres';

/** Why a cluster cannot be started here, or null when the binaries (and, as root, the user) are present. */
export function postgresMissing(): string | null {
  for (const bin of ['initdb', 'pg_ctl', 'postgres', 'pg_isready']) {
    if (!fs.existsSync(path.join(PG_BIN_DIR, bin)))
      return `PostgreSQL 15 is not installed (no ${path.join(PG_BIN_DIR, bin)}): ${PG_PACKAGE_HINT}`;
  }
  if (process.getuid?.() === 0 && spawnSync('id', ['-u', PG_USER]).status !== 0)
    return `there is no ${PG_USER} user to run PostgreSQL as (it refuses root): ${PG_PACKAGE_HINT}`;
  return null;
}

export interface PgCluster {
  host: string;
  port: number;
  password: string;
  /** The postmaster's PID, from its own postmaster.pid. */
  pid: number;
  dir: string;
  /** A `postgres://` URL for `database` as the superuser, password included. */
  url(database?: string): string;
}

export interface PgClusterOptions {
  /** fsync, synchronous_commit and full_page_writes as in production (default off: a test needs no durability). */
  durable?: boolean;
}

function asPostgresUser(bin: string, args: string[], timeoutMs: number): { code: number; output: string } {
  const asRoot = process.getuid?.() === 0;
  const cmd = asRoot ? 'runuser' : path.join(PG_BIN_DIR, bin);
  const argv = asRoot ? ['-u', PG_USER, '--', path.join(PG_BIN_DIR, bin), ...args] : args;
  const run = spawnSync(cmd, argv, { encoding: 'utf8', timeout: timeoutMs });
  if (run.error) throw run.error;
  return { code: run.status ?? 1, output: `${run.stdout}${run.stderr}` };
}

function readPostmasterPid(data: string): number | null {
  try {
    const pid = Number(fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function readLog(dir: string): string {
  try {
    return fs.readFileSync(path.join(dir, 'server.log'), 'utf8').slice(-4000);
  } catch {
    return '';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** initdb + pg_ctl start in a fresh temp directory on a free loopback port, ready to accept connections. */
export async function startPgCluster(options: PgClusterOptions = {}): Promise<PgCluster> {
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
  const durability = options.durable
    ? []
    : ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off'];
  // A port free a moment ago can be taken before the postmaster binds it: try a few.
  let lastOutput = '';
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const port = await freePort(host);
    const settings = [
      `-p ${port}`,
      `-k ${dir}`,
      `-c listen_addresses=${host}`,
      ...durability,
      '-c max_connections=300',
    ].join(' ');
    const start = asPostgresUser(
      'pg_ctl',
      ['start', '-D', data, '-w', '-t', '120', '-l', path.join(dir, 'server.log'), '-o', settings],
      150_000,
    );
    const pid = readPostmasterPid(data);
    if (start.code === 0 && pid !== null) {
      const cluster: PgCluster = {
        host,
        port,
        password,
        pid,
        dir,
        url: (database = 'postgres') =>
          `postgres://${PG_USER}:${encodeURIComponent(password)}@${host}:${port}/${database}?sslmode=disable`,
      };
      try {
        await pollUntil(
          'PostgreSQL to accept connections',
          60_000,
          () =>
            spawnSync(path.join(PG_BIN_DIR, 'pg_isready'), ['-h', host, '-p', String(port)], {
              timeout: 10_000,
            }).status === 0,
          { everyMs: 100 },
        );
      } catch (err) {
        await stopPgCluster(cluster);
        throw err;
      }
      return cluster;
    }
    if (pid !== null) await stopPgCluster({ pid, dir: '' });
    lastOutput = `${start.output}\n${readLog(dir)}`;
  }
  fs.rmSync(dir, { recursive: true, force: true });
  throw new Error(`PostgreSQL did not start:\n${lastOutput}`);
}

/** Fast shutdown of the postmaster by its PID (SIGKILL if it lingers), then removes the directory. */
export async function stopPgCluster(cluster: Pick<PgCluster, 'pid' | 'dir'>): Promise<void> {
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

/** For an exit handler, where nothing can be awaited: SIGKILL to the postmaster (its backends follow). */
export function killPgClusterNow(cluster: Pick<PgCluster, 'pid' | 'dir'>): void {
  if (alive(cluster.pid)) process.kill(cluster.pid, 'SIGKILL');
  if (cluster.dir) fs.rmSync(cluster.dir, { recursive: true, force: true });
}

/** Creates an empty database `name` in the cluster and returns its URL (password included). */
export async function createPgDatabase(cluster: PgCluster, name: string): Promise<string> {
  if (!/^[a-z][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a database name: '${name}'`);
  const admin = postgres(cluster.url(), { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  return cluster.url(name);
}
