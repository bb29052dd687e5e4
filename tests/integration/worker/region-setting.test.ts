// ERAWATCH_REGION names where a process probes from, and ERAWATCH_PROBE_SOURCE_ADDRESS the address it probes
// from. A bad value refuses start-up with one line, before the database is opened: the worker and the web
// start-up path alike. A good region is named in the worker's start-up line.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-region-'));
const cli = path.join(root, 'bin', 'erawatch.mjs');
const webStartup = path.join(root, 'tests', 'integration', 'db', 'fixtures', 'web-startup.ts');
const pids: number[] = [];

afterAll(() => {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs to exit; with `until`, sends SIGTERM once stdout matches it. */
function run(args: string[], env: Record<string, string>, dbFile: string, until?: RegExp): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: {
        ...process.env,
        ERAWATCH_DB: dbFile,
        ERAWATCH_BIND: '127.0.0.1',
        ERAWATCH_CONFIG: path.join(dir, 'absent.yaml'),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (child.pid) pids.push(child.pid);
    let stdout = '';
    let stderr = '';
    let signalled = false;
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
      if (until && !signalled && until.test(stdout)) {
        signalled = true;
        child.kill('SIGTERM');
      }
    });
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const rule = 'must use lowercase letters, digits and -, 1 to 63 characters';
const bad: Array<{ name: string; env: Record<string, string>; line: string }> = [
  { name: 'capitals', env: { ERAWATCH_REGION: 'EU-West' }, line: `ERAWATCH_REGION ${rule}, got 'EU-West'` },
  {
    name: 'an underscore',
    env: { ERAWATCH_REGION: 'eu_west' },
    line: `ERAWATCH_REGION ${rule}, got 'eu_west'`,
  },
  {
    name: '64 characters',
    env: { ERAWATCH_REGION: 'r'.repeat(64) },
    line: `ERAWATCH_REGION must be at most 63 characters (got 64), got '${'r'.repeat(64)}'`,
  },
  {
    name: 'a source address that is not an IP',
    env: { ERAWATCH_PROBE_SOURCE_ADDRESS: 'eth0' },
    line: "ERAWATCH_PROBE_SOURCE_ADDRESS must be an IP address of this host, got 'eth0'",
  },
];
const starts = [
  { what: 'worker', args: [cli, 'worker', '--roles', 'poll'], prefix: 'erawatch worker', code: 2 },
  { what: 'web start-up', args: ['--import', 'tsx', webStartup], prefix: 'erawatch', code: 2 },
];
const cases = starts.flatMap((s) => bad.map((b) => ({ ...s, ...b })));

describe('ERAWATCH_REGION and ERAWATCH_PROBE_SOURCE_ADDRESS', () => {
  it.each(cases)('$what refuses $name with one line and opens nothing', async (c) => {
    const dbFile = path.join(dir, `refused-${c.what.replace(/\W/g, '')}-${c.name.replace(/\W/g, '')}.db`);
    const r = await run(c.args, c.env, dbFile);
    expect(r.code).toBe(c.code);
    expect(r.stdout).not.toMatch(/started|database/);
    expect(r.stderr.trim().split('\n')).toEqual([`${c.prefix}: ${c.line}`]);
    expect(fs.existsSync(dbFile)).toBe(false);
  });

  it('a worker names its region in its start-up line; unset, the region is default', async () => {
    const eu = await run(
      [cli, 'worker', '--roles', 'maintain'],
      { ERAWATCH_REGION: 'eu-west', ERAWATCH_PROBE_SOURCE_ADDRESS: '127.0.0.2' },
      path.join(dir, 'eu.db'),
      /region eu-west\n/,
    );
    expect(eu.stdout).toMatch(/roles maintain, region eu-west\n/);
    expect(eu.code).toBe(0);
    const plain = await run(
      [cli, 'worker', '--roles', 'maintain'],
      { ERAWATCH_REGION: '' },
      path.join(dir, 'plain.db'),
      /region default\n/,
    );
    expect(plain.stdout).toMatch(/roles maintain, region default\n/);
    expect(plain.code).toBe(0);
  });
});
