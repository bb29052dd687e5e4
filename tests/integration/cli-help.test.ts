// Every `erawatch` command explains itself: `--help` prints the usage, what the command does, each of its
// flags and what its exit codes mean, and exits 0. Run as a user runs it: the real bin, a child process.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES } from '@/lib/cli/main';
import pkg from '../../package.json';

const BIN = path.resolve(__dirname, '../../bin/erawatch.mjs');

function erawatch(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    // No database or config is touched by --help; point them at nothing to be sure.
    env: {
      ...process.env,
      ERAWATCH_DB: '/nonexistent/erawatch-help.db',
      ERAWATCH_CONFIG: '/nonexistent.yaml',
    },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const cases: Array<{ command: string; flags: string[]; codes: number[] }> = [
  {
    command: 'probe',
    flags: [
      '--allow-legacy',
      '--audit-legacy',
      '--timeout-ms',
      '--legacy-timeout-ms',
      '--header',
      '--stdio',
      '--json',
      '--oauth-client-id',
      '--oauth-client-secret-env',
      '--oauth-scope',
    ],
    codes: [0, 1, 2],
  },
  {
    command: 'demo',
    flags: ['--port', '--no-build', '--fast', '--step-seconds', '--no-rollout', '--reset', '--base-port'],
    codes: [0, 1, 2],
  },
  {
    command: 'worker',
    flags: [
      '--roles',
      '--db',
      '--concurrency',
      '--health-port',
      'ERAWATCH_REGION',
      'ERAWATCH_PROBE_SOURCE_ADDRESS',
    ],
    codes: [0, 1, 2],
  },
  { command: 'serve', flags: ['--host', '--port', 'PORT', 'ERAWATCH_ADMIN_SECRET'], codes: [1, 2, 143] },
  { command: 'poller', flags: ['--roles', '--db', '--concurrency'], codes: [0, 1, 2] },
  { command: 'db-migrate', flags: ['--db'], codes: [0, 1, 2] },
  {
    command: 'config',
    flags: ['export', 'apply', 'check', 'schema', '--out', '--include-secrets'],
    codes: [0, 1, 2],
  },
  { command: 'host-check', flags: ['--json', '--verbose'], codes: [0, 1, 2] },
  { command: 'bench', flags: ['probe', 'poller', 'api', 'ui', 'rate-limit'], codes: [0, 1, 2] },
];

describe('erawatch <command> --help', () => {
  it('covers every command', () => {
    expect(cases.map((c) => c.command).sort()).toEqual([...COMMAND_NAMES].sort());
  });

  it.each(cases)(
    '$command --help lists its flags, what it does and its exit codes',
    ({ command, flags, codes }) => {
      const r = erawatch([command, '--help']);
      expect(r.status).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(new RegExp(`^usage: erawatch ${command}`));
      // A description of at least one sentence between the usage and the flags.
      const about = r.stdout.split('\n\n')[1] ?? '';
      expect(about.length).toBeGreaterThan(60);
      expect(r.stdout).toMatch(/\n(flags|options):\n/);
      for (const flag of [...flags, '--help']) expect(r.stdout).toContain(flag);
      const exit = r.stdout.slice(r.stdout.indexOf('exit codes:'));
      expect(exit).toMatch(/^exit codes:\n/);
      for (const code of codes) expect(exit).toMatch(new RegExp(`\\n  ${code} +\\S`));
    },
  );

  it('--version prints the package version and exits 0', () => {
    const r = erawatch(['--version']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${pkg.version}\n`);
  });

  it.each(['-h'])('%s works like --help', (flag) => {
    const r = erawatch(['host-check', flag]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('exit codes:');
  });

  it.each([
    { args: ['host-check', '--bogus'], stderr: /usage: erawatch host-check/ },
    { args: ['poller', '--bogus'], stderr: /usage: erawatch poller/ },
    { args: ['db-migrate', '--bogus'], stderr: /usage: erawatch db-migrate/ },
    { args: ['config', 'bogus'], stderr: /usage: erawatch config/ },
    {
      args: ['config', 'apply', '--file', 'x.yaml'],
      stderr: /takes no flags, got '--file'[\s\S]*usage: erawatch config/,
    },
    {
      args: ['config', 'check', 'a.yaml', 'b.yaml'],
      stderr: /takes one FILE, got 2[\s\S]*usage: erawatch config/,
    },
    { args: ['nosuch'], stderr: /unknown command 'nosuch'[\s\S]*--help/ },
    { args: ['serve', '--port', '70000'], stderr: /--port must be a port from 1 to 65535, got '70000'/ },
    { args: ['serve', '--host', 'not a host'], stderr: /--host must be an IP address or a host name/ },
    { args: ['serve', '--bogus'], stderr: /unknown argument '--bogus'[\s\S]*usage: erawatch serve/ },
  ])('bad usage $args exits 2 with the usage on stderr and touches nothing', ({ args, stderr }) => {
    const r = erawatch(args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(stderr);
    expect(r.stdout).toBe('');
  });
});
