// The systemd units: `systemd-analyze verify` accepts them, they run the commands the package has, SIGTERM
// reaches the process, and the hardening leaves only the database directory writable.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const dir = path.resolve(import.meta.dirname, '../../../deploy/systemd');
const UNITS = [
  { file: 'erawatch.service', command: 'serve' },
  { file: 'erawatch-worker.service', command: 'worker' },
];

function directives(file: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of fs.readFileSync(path.join(dir, file), 'utf8').split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (m?.[1] !== undefined) out.set(m[1], [...(out.get(m[1]) ?? []), m[2] ?? '']);
  }
  return out;
}

const envFile = fs.readFileSync(path.join(dir, 'erawatch.env'), 'utf8');
const dbDir = path.dirname(/^ERAWATCH_DB=(.+)$/m.exec(envFile)?.[1] ?? '');

describe('systemd units', () => {
  it('systemd-analyze verify accepts both', () => {
    // On this project's machines (Debian with systemd 252) the verifier is there; elsewhere say so.
    const r = spawnSync('systemd-analyze', ['verify', ...UNITS.map((u) => path.join(dir, u.file))], {
      encoding: 'utf8',
    });
    expect(r.error, 'systemd-analyze is not installed').toBeUndefined();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it.each(UNITS)(
    '$file runs erawatch $command, restarts on failure and stops with SIGTERM',
    ({ file, command }) => {
      const d = directives(file);
      expect(d.get('ExecStart')?.[0]).toMatch(new RegExp(`\\berawatch ${command}\\b`));
      expect(d.get('Restart')).toEqual(['on-failure']);
      expect(d.get('KillMode')).toEqual(['mixed']);
      expect(d.get('KillSignal')).toEqual(['SIGTERM']);
      // Longer than the worker's own shutdown: 10 s for cycles, 5 s for abandoned probes.
      expect(Number(d.get('TimeoutStopSec')?.[0])).toBeGreaterThan(15);
      expect(d.get('EnvironmentFile')).toEqual(['/etc/erawatch/erawatch.env']);
    },
  );

  it.each(UNITS)('$file is hardened, with the database directory writable', ({ file }) => {
    const d = directives(file);
    expect(d.get('NoNewPrivileges')).toEqual(['yes']);
    expect(d.get('ProtectSystem')).toEqual(['strict']);
    expect(d.get('ReadWritePaths')).toEqual([dbDir]);
    expect(d.get('StateDirectory')).toEqual([path.basename(dbDir)]);
    expect(d.get('User')).toEqual(['erawatch']);
    // What the service creates is its own; only an ordinary service's system calls, others refused.
    expect(d.get('UMask')).toEqual(['0077']);
    expect(d.get('SystemCallFilter')).toEqual(['@system-service']);
    expect(d.get('SystemCallErrorNumber')).toEqual(['EPERM']);
  });

  it('the environment file is installed as the guide says, creating /etc/erawatch on a fresh machine', () => {
    const guide = fs.readFileSync(path.resolve(dir, '../../docs/deployment.md'), 'utf8');
    for (const text of [guide, envFile]) {
      const line = /^\s*#?\s*(install\b[^\n]*erawatch\.env \/etc\/erawatch\/erawatch\.env)/m.exec(text)?.[1];
      expect(line).toMatch(/^install -D -m 600 /);
    }
  });
});
