// Rewrites the README's settings table from the one schema (lib/settings.ts); tests/unit/settings checks it.
// npm run docs:settings
import fs from 'node:fs';
import path from 'node:path';
import * as prettier from 'prettier';
import { settingsTable } from '../lib/settings';

const START = '<!-- settings table: generated from lib/settings.ts, checked by tests/unit/settings -->';
const END = '<!-- end of settings table -->';

const readmePath = path.resolve(import.meta.dirname, '..', 'README.md');
const readme = fs.readFileSync(readmePath, 'utf8');
const start = readme.indexOf(START);
const end = readme.indexOf(END);
if (start < 0 || end < start) {
  console.error(`README.md: the settings table markers are missing (${START} … ${END})`);
  process.exit(1);
}
const options = (await prettier.resolveConfig(readmePath)) ?? {};
const table = (await prettier.format(settingsTable(), { ...options, parser: 'markdown' })).trim();
fs.writeFileSync(readmePath, `${readme.slice(0, start + START.length)}\n\n${table}\n\n${readme.slice(end)}`);
console.log(`README.md: settings table written (${table.split('\n').length - 2} settings)`);
