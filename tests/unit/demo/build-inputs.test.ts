// The demo rebuilds the app only when an input of the app changed. The folders it leaves out (the CLI, the
// demo, the MCP test servers, host-check) must stay out of the app: nothing the app is built from imports them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkBuild, NOT_APP_INPUTS } from '@/lib/demo/next-app';

const root = path.resolve(import.meta.dirname, '../../..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-inputs-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function sources(dir: string): string[] {
  return fs
    .readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ts|tsx|mjs|js)$/.test(f))
    .map((f) => path.join(dir, f));
}

describe('the app build inputs', () => {
  it('no file the app is built from imports the folders the build check leaves out', () => {
    const app = [
      ...sources('app'),
      ...sources('components'),
      ...sources('lib'),
      'instrumentation.ts',
      'proxy.ts',
    ].filter((f) => !NOT_APP_INPUTS.some((d) => f.startsWith(`${d}/`)));
    expect(app.length).toBeGreaterThan(50);
    const offenders = app.filter((f) => {
      const text = fs.readFileSync(path.join(root, f), 'utf8');
      return NOT_APP_INPUTS.some((d) => text.includes(`'@/${d}`) || text.includes(`"@/${d}`));
    });
    expect(offenders).toEqual([]);
  });

  it('a change in the CLI leaves the build current; a change in the app does not', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'app-'));
    fs.mkdirSync(path.join(dir, 'lib', 'cli'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'lib', 'probe'), { recursive: true });
    fs.mkdirSync(path.join(dir, '.next'));
    fs.writeFileSync(path.join(dir, '.next', 'BUILD_ID'), 'x');
    const later = new Date(Date.now() + 20_000);
    fs.writeFileSync(path.join(dir, 'lib', 'cli', 'main.ts'), '');
    fs.utimesSync(path.join(dir, 'lib', 'cli', 'main.ts'), later, later);
    expect(checkBuild(dir).current).toBe(true);
    fs.writeFileSync(path.join(dir, 'lib', 'probe', 'x.ts'), '');
    fs.utimesSync(path.join(dir, 'lib', 'probe', 'x.ts'), later, later);
    expect(checkBuild(dir)).toEqual({
      current: false,
      reason: `${path.join('lib', 'probe', 'x.ts')} changed since the last build`,
    });
  });
});
