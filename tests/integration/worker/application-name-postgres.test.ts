// On a real PostgreSQL 15, every connection of `erawatch worker` names the process and its roles in
// application_name (as pg_stat_activity shows it), unless the URL names one; the start-up line never shows
// the URL's password.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDatabase, describePostgres, sharedCluster, stopSharedCluster } from '../../support/postgres';
import { pollUntil, PollAborted } from '../../support/wait';

const root = path.resolve(import.meta.dirname, '../../..');

describePostgres('application_name of worker connections', () => {
  const children: ChildProcess[] = [];
  let admin: postgres.Sql | null = null;
  let database = '';
  let withPassword = '';
  let password = '';

  beforeAll(async () => {
    const cluster = await sharedCluster();
    database = new URL(await createDatabase('application-name')).pathname.slice(1);
    withPassword = cluster.url(database);
    password = cluster.password;
    admin = postgres(cluster.url(), { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    for (const child of children)
      if (child.exitCode === null && child.pid) process.kill(child.pid, 'SIGKILL');
    await admin?.end({ timeout: 5 });
    await stopSharedCluster();
  });

  function startWorker(db: string, roles: string) {
    const child = spawn(process.execPath, [path.join(root, 'bin/erawatch.mjs'), 'worker', '--roles', roles], {
      cwd: root,
      env: {
        ...process.env,
        ERAWATCH_DB: db,
        ERAWATCH_CONFIG: path.join(root, 'absent.yaml'),
        PGPASSWORD: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    return { child, output: () => out };
  }

  async function namesIn(db: string): Promise<string[]> {
    if (!admin) throw new Error('no admin connection');
    const rows = await admin<Array<{ name: string }>>`
      SELECT DISTINCT application_name AS name FROM pg_stat_activity WHERE datname = ${db}`;
    return rows.map((r) => r.name).sort();
  }

  it('names the process and its roles, or what the URL names', async () => {
    const plain = startWorker(withPassword, 'deliver,maintain');
    const named = new URL(withPassword);
    named.searchParams.set('application_name', 'erawatch-eu-west-3');
    const custom = startWorker(named.toString(), 'deliver');
    for (const w of [plain, custom]) {
      await pollUntil('the worker to start', 60_000, () => {
        if (w.child.exitCode !== null) throw new PollAborted(`the worker exited:\n${w.output()}`);
        return w.output().includes('roles ');
      });
    }
    const names = await pollUntil('both workers’ connections', 30_000, async () => {
      const seen = await namesIn(database);
      return seen.includes('erawatch-worker:deliver,maintain') && seen.includes('erawatch-eu-west-3') && seen;
    });
    expect(names.filter((n) => n.startsWith('erawatch'))).toEqual([
      'erawatch-eu-west-3',
      'erawatch-worker:deliver,maintain',
    ]);
    expect(plain.output()).toContain(`[worker] database postgres://postgres@127.0.0.1:`);
    expect(plain.output()).toContain(`/${database}, roles deliver,maintain, region default`);
    expect(plain.output() + custom.output()).not.toContain(password);
    for (const w of [plain, custom]) {
      const exited = new Promise((resolve) => w.child.once('exit', resolve));
      if (w.child.pid) process.kill(w.child.pid, 'SIGTERM');
      await exited;
    }
    expect(plain.output()).toContain('[worker] stopped');
  });
});
