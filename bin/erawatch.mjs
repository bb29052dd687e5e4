#!/usr/bin/env node
// In a checkout the CLI runs from its TypeScript source through tsx, so a fresh clone needs no build step.
// The published package holds no source: it runs the CLI compiled when it was packed (dist/cli).
import fs from 'node:fs';

const source = new URL('../lib/cli/main.ts', import.meta.url);
let main;
if (fs.existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register({ tsconfig: new URL('../tsconfig.json', import.meta.url).pathname });
  ({ main } = await import(source.href));
} else {
  ({ main } = await import('../dist/cli/main.js'));
}
process.exitCode = await main(process.argv.slice(2));
