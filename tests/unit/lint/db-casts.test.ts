// Each engine has its own drizzle database and tables (db/index.ts): the lint rule refuses a cast through
// unknown anywhere in db/, which is how one engine's handle used to pass for the other's.
import { beforeAll, describe, expect, it } from 'vitest';
import { ruleMessages, warmUp } from './support';

const cast = (file: string, source: string) => ruleMessages('no-restricted-syntax', file, source);

beforeAll(warmUp, 120_000);

describe('casts through unknown in db/', () => {
  it.each([
    ['db/engines/x.ts', 'declare const h: object;\nexport const db = h as unknown as Map<string, number>;\n'],
    ['db/queries/x.ts', 'declare const h: object;\nexport const db = h as unknown as Set<string>;\n'],
    ['db/x.ts', 'declare const h: object;\nexport const db = <Set<string>>(<unknown>h);\n'],
  ])('%s: %s is refused', async (file, source) => {
    const messages = await cast(file, source);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('No casts through unknown in the store');
  });

  it('keeps the portable-query rule beside it in db/queries', async () => {
    const messages = await cast(
      'db/queries/x.ts',
      'declare const q: { get(): number };\nexport const n = q.get();\n',
    );
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('Portable queries only');
  });

  it('lets through a plain assertion in db/ and a cast through unknown outside it', async () => {
    expect(await cast('db/x.ts', 'declare const h: unknown;\nexport const n = h as number;\n')).toEqual([]);
    expect(
      await cast('lib/api/x.ts', 'declare const h: object;\nexport const s = h as unknown as Set<string>;\n'),
    ).toEqual([]);
  });
});
