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
      'dist/',
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
    // Store operations are async: a forgotten await drops a write or its error.
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    // One query layer for every engine: only builders that PostgreSQL has too (no .get/.all/.run/.values).
    files: ['db/queries/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "CallExpression[callee.type='MemberExpression'][callee.property.name=/^(get|all|run|values)$/][arguments.length=0]",
          message:
            'Portable queries only: await the builder (rows[0] for one row, .returning() for counts); raw SQL goes through selectRows.',
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
