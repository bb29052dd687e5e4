// The project's lint configuration run on samples of code at paths of the tree, for the tests of its rules.
import path from 'node:path';
import { ESLint } from 'eslint';

export const root = path.resolve(import.meta.dirname, '../../..');

export const eslint = new ESLint({
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

/** The messages `ruleId` gives for `source` as if it were the file at `file`. */
export async function ruleMessages(ruleId: string, file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: path.join(root, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId === ruleId).map((m) => m.message);
}

/** Loading the configuration (typescript-eslint, Next's rules) is the slow part: once, before the cases. */
export async function warmUp(): Promise<void> {
  await eslint.lintText('export {};\n', { filePath: path.join(root, 'lib/warm-up.ts') });
}
