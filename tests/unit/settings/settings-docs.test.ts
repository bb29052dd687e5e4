// The docs list every setting from the one schema: the README's table is the one settingsTable() generates,
// and every ERAWATCH_ variable the docs name is a setting of the schema.
import fs from 'node:fs';
import path from 'node:path';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { SETTING_NAMES, settingsTable } from '@/lib/settings';

const root = path.resolve(__dirname, '../../..');
const START = '<!-- settings table: generated from lib/settings.ts, checked by tests/unit/settings -->';
const END = '<!-- end of settings table -->';
/** Variables the docs use as examples of what an operator names (a token in CI), not settings. */
const EXAMPLES = new Set(['ERAWATCH_TOKEN', 'ERAWATCH_WRITE_TOKEN']);

async function formatted(table: string): Promise<string> {
  const options = (await prettier.resolveConfig(path.join(root, 'README.md'))) ?? {};
  return (await prettier.format(table, { ...options, parser: 'markdown' })).trim();
}

describe('the settings in the docs', () => {
  it('the README table is the one generated from the schema', async () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const start = readme.indexOf(START);
    const end = readme.indexOf(END);
    expect(start, 'the README marks its settings table').toBeGreaterThan(0);
    const block = readme.slice(start + START.length, end).trim();
    // On a mismatch, the expected side is the table to paste between the markers.
    expect(block).toBe(await formatted(settingsTable()));
  });

  it('every ERAWATCH_ variable the README and docs/ name is a setting', () => {
    const docs = fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md'));
    const unknown: string[] = [];
    for (const file of ['README.md', ...docs.map((f) => `docs/${f}`)]) {
      const text = fs.readFileSync(path.join(root, file), 'utf8');
      for (const [name] of text.matchAll(/ERAWATCH_[A-Z0-9_]+/g)) {
        const known = (SETTING_NAMES as readonly string[]).includes(name) || EXAMPLES.has(name);
        if (!known) unknown.push(`${file}: ${name}`);
      }
    }
    expect(unknown).toEqual([]);
  });
});
