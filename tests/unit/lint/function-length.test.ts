// No function in lib/ is over 100 lines (generated files aside): a longer one is split into named steps. The
// measure is scripts/longest-functions.ts's (the TypeScript AST, first line to last).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { functionLengths, longestFunctions } from '@/scripts/longest-functions';

const root = path.resolve(import.meta.dirname, '../../..');
const LIMIT = 100;

describe('function length in lib/', () => {
  it(`has no function over ${LIMIT} lines`, () => {
    const over = longestFunctions(path.join(root, 'lib'), 20)
      .filter((f) => f.lines > LIMIT)
      .map((f) => `${path.relative(root, f.file)}:${f.line} ${f.name} (${f.lines} lines)`);
    expect(over).toEqual([]);
  });

  it('measures a function from its first line to its last, nested ones too', () => {
    const body = Array.from({ length: 101 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const text = `export function long() {\n${body}\n  const inner = () => {\n    return 1;\n  };\n}\n`;
    const lengths = functionLengths('x.ts', text);
    expect(lengths.find((f) => f.name === 'long')?.lines).toBe(106);
    expect(lengths.find((f) => f.name === 'inner')?.lines).toBe(3);
  });
});
