import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import nextVitals from 'eslint-config-next/core-web-vitals';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      '.next/',
      'data/',
      'db/migrations/',
      'db/migrations-pg/',
      'test-results/',
      'next-env.d.ts',
      'bench-results/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...nextVitals,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The store has one door: only db/ sees the driver, drizzle and the tables.
    files: ['app/**', 'components/**', 'lib/**', 'bench/**', 'instrumentation.ts'],
    // Still holding SQL of their own, to move behind named store operations.
    ignores: [
      'lib/poller/write.ts',
      'lib/poller/stdio.ts',
      'lib/poller/targets.ts',
      'lib/config/apply.ts',
      'bench/poller.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['better-sqlite3', 'drizzle-orm', 'drizzle-orm/*', '@/db/schema', '@/db/schema/*'],
              message: 'The store has one door: call a named operation from db/ instead.',
            },
          ],
        },
      ],
    },
  },
  {
    // The store returns data: presentation, client queries and the web layer live outside db/ and build on it.
    files: ['db/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@/lib/ui', '@/lib/ui/*', '**/lib/ui', '**/lib/ui/*'],
              message: 'db/ returns data; shape it for the screens in lib/ui or lib/api/read-model.ts.',
            },
            {
              group: ['@/lib/query', '@/lib/query/*', '**/lib/query', '**/lib/query/*'],
              message: 'db/ must not depend on the client; take result types from lib/schemas.',
            },
            {
              group: [
                '@/components',
                '@/components/*',
                '**/components',
                '**/components/*',
                '@/app',
                '@/app/*',
                '**/app/*',
              ],
              message: 'db/ must not depend on components or routes.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.cjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
  },
);
