// Debian's PostgreSQL 15 for the tests: a throwaway cluster in a temp directory on a free loopback port (one
// per vitest run, started by the first file that asks and stopped by PID in the global teardown), and a fresh
// database per test file. PostgreSQL refuses to run as root, so the cluster runs as the `postgres` user.
import fs from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';
import { describe, inject, it } from 'vitest';
import { postgresMissing, startPgCluster, stopPgCluster, type PgCluster } from './pg-cluster';
import { pollUntil } from './wait';

export { pgBinDir, PG_PACKAGE_HINT, postgresMissing } from './pg-cluster';
const PG_USER = 'postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's directory where the first file that needs PostgreSQL starts the shared cluster. */
    pgRunDir: string;
  }
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

export type Cluster = PgCluster;
type ClusterFile = Omit<PgCluster, 'url'>;

function withUrl(c: ClusterFile): Cluster {
  return {
    ...c,
    url: (database = 'postgres') =>
      `postgres://${PG_USER}:${encodeURIComponent(c.password)}@${c.host}:${c.port}/${database}?sslmode=disable`,
  };
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
    privateCluster ??= startPgCluster();
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
      const cluster = await startPgCluster();
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
  if (cluster) await stopPgCluster(cluster);
}

/** The global teardown's half: stops the run's cluster if a file started one. */
export async function stopRunCluster(dir: string): Promise<void> {
  const file = path.join(dir, CLUSTER_FILE);
  if (fs.existsSync(file)) {
    const cluster = JSON.parse(fs.readFileSync(file, 'utf8')) as ClusterFile;
    await stopPgCluster(cluster);
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
