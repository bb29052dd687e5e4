// db/ returns data: the lint rule refuses an import of presentation, client or web code from any module in it.
import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../../..');
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

async function restricted(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: path.join(root, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

// Loading the config (typescript-eslint, Next's rules) is the slow part: done once, with room for a busy machine.
beforeAll(async () => {
  await eslint.lintText('export {};\n', { filePath: path.join(root, 'db/warm-up.ts') });
}, 120_000);

describe('db/ imports', () => {
  it.each([
    ['db/queries/x.ts', "import { nodeLabel } from '@/lib/ui/node-label';", 'lib/ui'],
    ['db/queries/x.ts', "import type { NodeSummary } from '@/lib/query/types';", 'lib/schemas'],
    ['db/queries/x.ts', "import { Timeline } from '@/components/events/timeline';", 'components'],
    ['db/x.ts', "import { GET } from '@/app/api/v1/events/route';", 'routes'],
    ['db/queries/x.ts', "import { sortFleet } from '../../lib/ui/fleet';", 'lib/ui'],
  ])('%s: %s is refused', async (file, line, says) => {
    const messages = await restricted(
      file,
      `${line}\nexport const used = [${line.match(/\{ (\w+) \}/)?.[1]}];\n`,
    );
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain(says);
  });

  it('allows schemas in db/, and lib/ui outside it', async () => {
    expect(
      await restricted(
        'db/queries/x.ts',
        "import { NodeView } from '@/lib/schemas/balancer-view';\nexport const v = NodeView;\n",
      ),
    ).toEqual([]);
    expect(
      await restricted(
        'lib/api/x.ts',
        "import { nodeLabel } from '@/lib/ui/node-label';\nexport const v = nodeLabel;\n",
      ),
    ).toEqual([]);
  });
});
