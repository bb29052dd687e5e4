// A new SQLite store is private to the user that runs it, whatever the umask: `erawatch db-migrate` started
// under umask 000 creates the folders it needs 0700 and the file (and SQLite its -wal and -shm) 0600, and
// leaves an existing folder and file as they were.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-private-'));

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Runs `erawatch db-migrate` under `umask 000`, as a shell started by a careless unit would. */
function migrate(dbFile: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'sh',
      ['-c', 'umask 000 && exec "$0" bin/erawatch.mjs db-migrate', process.execPath],
      {
        cwd: root,
        env: { ...process.env, HOME: dir, ERAWATCH_DB: dbFile },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

const mode = (p: string) => fs.statSync(p).mode & 0o777;

describe('a new SQLite store is private', () => {
  it('creates its folders 0700 and the file 0600 under umask 000', async () => {
    const file = path.join(dir, 'var', 'lib', 'erawatch', 'erawatch.db');
    const run = await migrate(file);
    expect(run.code, run.output).toBe(0);
    expect(mode(path.join(dir, 'var'))).toBe(0o700);
    expect(mode(path.join(dir, 'var', 'lib'))).toBe(0o700);
    expect(mode(path.join(dir, 'var', 'lib', 'erawatch'))).toBe(0o700);
    expect(mode(file)).toBe(0o600);
    const siblings = fs.readdirSync(path.dirname(file)).filter((f) => f !== 'erawatch.db');
    for (const f of siblings) expect(mode(path.join(path.dirname(file), f)), f).toBe(0o600);
  });

  it('leaves an existing folder and file as the operator made them', async () => {
    const shared = path.join(dir, 'shared');
    fs.mkdirSync(shared);
    fs.chmodSync(shared, 0o750);
    const file = path.join(shared, 'erawatch.db');
    fs.writeFileSync(file, '');
    fs.chmodSync(file, 0o640);
    const run = await migrate(file);
    expect(run.code, run.output).toBe(0);
    expect(mode(shared)).toBe(0o750);
    expect(mode(file)).toBe(0o640);
  });
});
