// `erawatch demo` refusing bad input from the real command line: a clear message, a usage exit status,
// and nothing started (the port check comes before the build and the fleet).
import { spawnSync } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../../bin/erawatch.mjs', import.meta.url));

function runDemo(args: string[]) {
  const r = spawnSync(process.execPath, [bin, 'demo', ...args], { encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('erawatch demo command line', () => {
  const holder = net.createServer();
  let taken = 0;
  beforeAll(async () => {
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const address = holder.address();
    taken = typeof address === 'object' && address ? address.port : 0;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => holder.close(() => resolve()));
  });

  it('--help prints the options and exits 0', () => {
    const r = runDemo(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^usage: erawatch demo \[options\]/);
    for (const flag of [
      '--port N',
      '--no-build',
      '--fast',
      '--step-seconds N',
      '--no-rollout',
      '--reset',
      '--base-port N',
    ]) {
      expect(r.stdout).toContain(flag);
    }
  });

  it.each([
    [['--port', 'abc'], '--port must be an integer from 1 to 65535'],
    [['--fast', '--step-seconds', '9'], 'use either --fast or --step-seconds'],
    [['--what'], "Unknown option '--what'"],
  ])('%j exits 2 with a message and the usage', (args, message) => {
    const r = runDemo(args);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`erawatch demo: ${message}`);
    expect(r.stderr).toContain('usage: erawatch demo [options]');
    expect(r.stdout).toBe('');
  });

  it('a taken --port exits 1 before building or starting anything', () => {
    const r = runDemo(['--port', String(taken)]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `erawatch demo: port ${taken} on 127.0.0.1 is in use (choose another with --port)\n`,
    );
    expect(r.stdout).toBe('');
  });
});
