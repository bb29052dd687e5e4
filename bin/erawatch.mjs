#!/usr/bin/env node
// Runs the TypeScript CLI straight from the source tree, so a fresh clone needs no build step.
import { register } from 'tsx/esm/api';

register({ tsconfig: new URL('../tsconfig.json', import.meta.url).pathname });
const { main } = await import('../lib/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
