// Settings are read once: the lint rule refuses `process.env` anywhere in product code but the settings module.
import { beforeAll, describe, expect, it } from 'vitest';
import { ruleMessages, warmUp } from './support';

const refused = (file: string, source: string) => ruleMessages('no-restricted-properties', file, source);

beforeAll(warmUp, 120_000);

describe('process.env outside lib/settings.ts', () => {
  it.each([
    ['lib/poller/x.ts', 'export const region = process.env.ERAWATCH_REGION;\n'],
    ['db/x.ts', "export const file = process.env['ERAWATCH_DB'];\n"],
    ['app/api/v1/x/route.ts', 'const { env } = process;\nexport const e = env;\n'],
    ['lib/cli/commands/x.ts', 'export const child = { ...process.env };\n'],
    ['bench/x.ts', 'export const e = process.env;\n'],
    ['instrumentation.ts', 'export const e = process.env.ERAWATCH_ROLES;\n'],
  ])('%s: refused', async (file, source) => {
    const messages = await refused(file, source);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('lib/settings.ts');
  });

  it('allows the settings module itself, and code handed its Settings', async () => {
    expect(await refused('lib/settings.ts', 'export const e = process.env;\n')).toEqual([]);
    expect(
      await refused(
        'lib/poller/x.ts',
        "import type { Settings } from '@/lib/settings';\nexport const r = (s: Settings) => s.region;\n",
      ),
    ).toEqual([]);
  });
});
