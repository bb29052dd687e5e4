// The lint rule that keeps the driver, drizzle and the tables behind db/: it fails an import outside db/.
import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');
const eslint = new ESLint({
  cwd: root,
  // The samples are not files in the TypeScript project, so the type-aware rules sit these out.
  overrideConfig: {
    languageOptions: { parserOptions: { projectService: false } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'off',
      '@typescript-eslint/no-misused-promises': 'off',
    },
  },
});

async function restricted(code: string, file: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('the store has one door', () => {
  // Loading the lint configuration (typescript-eslint, next) is slow on a busy machine; do it once, up front.
  beforeAll(async () => {
    await eslint.calculateConfigForFile(path.join(root, 'lib/index.ts'));
  }, 180_000);

  it.each([
    ["import Database from 'better-sqlite3';", 'lib/poller/a-new-file.ts'],
    ["import { eq } from 'drizzle-orm';", 'app/api/v1/a-new-route.ts'],
    ["import { drizzle } from 'drizzle-orm/better-sqlite3';", 'lib/metrics/a-new-file.ts'],
    ["import { balancers } from '@/db/schema';", 'components/a-new-widget.tsx'],
  ])('%s outside db/ is an error', async (line, file) => {
    // A screen's import of the store is refused by its layer's rule too (docs/architecture.md).
    expect(await restricted(`${line}\nexport const x = 1;\n`, file)).toEqual(
      expect.arrayContaining([expect.stringMatching(/The store has one door/)]),
    );
  });

  it('the same import inside db/ is allowed', async () => {
    expect(
      await restricted(
        "import Database from 'better-sqlite3';\nexport const x = Database;\n",
        'db/queries/x.ts',
      ),
    ).toEqual([]);
  });

  it.each(['.get()', '.all()', '.run()', '.values()'])(
    'a query in db/queries ending in %s is refused (PostgreSQL builders have none)',
    async (call) => {
      const [result] = await eslint.lintText(`export const q = (db: { x(): unknown }) => db.x()${call};\n`, {
        filePath: path.join(root, 'db/queries/x.ts'),
      });
      expect((result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-syntax')).toHaveLength(1);
    },
  );
});
