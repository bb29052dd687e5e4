// An unwritable database path stops start-up with one line naming the path and the cause, and a non-zero
// exit: the web start-up path, the worker and its poller alias, the demo and the other CLI commands alike.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-refusal-'));
const readOnly = path.join(dir, 'read-only');
fs.mkdirSync(readOnly, { mode: 0o555 });
fs.chmodSync(readOnly, 0o555);
fs.chmodSync(dir, 0o755);
// Root writes anywhere: run the children as an unprivileged user so the directory really is read-only.
const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
const dbFile = path.join(readOnly, 'erawatch.db');
const pids: number[] = [];

afterAll(() => {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  fs.chmodSync(readOnly, 0o755);
  fs.rmSync(dir, { recursive: true, force: true });
});

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: {
        ...process.env,
        HOME: dir,
        ERAWATCH_DB: dbFile,
        ERAWATCH_BIND: '127.0.0.1',
        ERAWATCH_CONFIG: path.join(dir, 'absent.yaml'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...asUser,
    });
    if (child.pid) pids.push(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const cli = path.join(root, 'bin', 'erawatch.mjs');
const cases: Array<{ what: string; args: string[]; prefix: string }> = [
  {
    what: 'web start-up',
    args: ['--import', 'tsx', path.join(import.meta.dirname, 'fixtures', 'web-startup.ts')],
    prefix: 'erawatch',
  },
  { what: 'worker', args: [cli, 'worker'], prefix: 'erawatch worker' },
  { what: 'poller', args: [cli, 'poller', '--db', dbFile], prefix: 'erawatch poller' },
  { what: 'demo', args: [cli, 'demo', '--no-build'], prefix: 'erawatch demo' },
  { what: 'db-migrate', args: [cli, 'db-migrate'], prefix: 'erawatch db-migrate' },
  { what: 'config export', args: [cli, 'config', 'export'], prefix: 'erawatch config' },
];

describe('a read-only database directory', () => {
  it.each(cases)('$what refuses with one line naming the path and the cause', async ({ args, prefix }) => {
    const { code, stdout, stderr } = await run(args);
    expect(code).toBe(1);
    expect(stdout).not.toMatch(/started|Ready/);
    expect(stderr.trim().split('\n')).toEqual([
      `${prefix}: cannot use the database at ${dbFile}: the directory ${readOnly} is not writable (EACCES)`,
    ]);
    expect(fs.readdirSync(readOnly)).toEqual([]);
  });
});
