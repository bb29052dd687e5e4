import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import nextVitals from 'eslint-config-next/core-web-vitals';

/** `@/x` and its files, and relative paths into it. */
const under = (dir) => [`@/${dir}`, `@/${dir}/*`, `**/${dir}`, `**/${dir}/*`];

// The store has one door: only db/ sees the driver, drizzle and the tables.
const STORE_DOOR = {
  group: ['better-sqlite3', 'drizzle-orm', 'drizzle-orm/*', '@/db/schema', '@/db/schema/*'],
  message: 'The store has one door: call a named operation from db/ instead.',
};

/** `x as unknown as T` and `<T>(<unknown>x)`: a value passed off as a type it was never checked against. */
const NO_CAST_THROUGH_UNKNOWN = {
  selector:
    ":matches(TSAsExpression, TSTypeAssertion)[expression.type=/^(TSAsExpression|TSTypeAssertion)$/][expression.typeAnnotation.type='TSUnknownKeyword']",
  message:
    'No casts through unknown in the store: type the value with its engine (SqliteStore, PostgresStore in db/index.ts).',
};

const refuse = (dirs, message) => ({ group: dirs.flatMap(under), message });

/** Layer by layer, the imports refused; the files of a later, narrower layer get its rules and the door. */
function layers() {
  const outsideDb = ['app/**', 'components/**', 'lib/**', 'bench/**', 'instrumentation.ts', 'proxy.ts'];
  const foundation = [
    'lib/probe/**',
    'lib/rollout/**',
    'lib/net/**',
    'lib/schemas/**',
    'lib/settings.ts',
    'lib/errors.ts',
    // The outbox plan is pure: the store's outbox write calls it.
    'lib/deliver/plan.ts',
  ];
  const block = (files, patterns, ignores = []) => ({
    files,
    ...(ignores.length > 0 ? { ignores } : {}),
    rules: { 'no-restricted-imports': ['error', { patterns }] },
  });
  const roles = [
    'lib/poller',
    'lib/deliver',
    'lib/webhooks',
    'lib/alertmanager',
    'lib/worker',
    'lib/config',
    'lib/metrics',
  ];
  const web = ['lib/api', 'lib/auth', 'lib/query', 'lib/ui', 'components', 'app'];
  return [
    block(outsideDb, [STORE_DOOR]),
    // Foundation: the probe, the analysis, the egress guard, the contracts and the settings stand alone.
    block(foundation, [
      STORE_DOOR,
      refuse(['db'], 'The foundation does no storage: take data as parameters, and let a role store it.'),
      refuse(
        [...roles, ...web, 'lib/cli', 'lib/demo', 'lib/host-check'],
        'The foundation imports only the foundation.',
      ),
    ]),
    // The poll role reports through its events; observers (metrics, benchmarks) subscribe, never the reverse.
    block(
      ['lib/poller/**'],
      [
        STORE_DOOR,
        refuse(['lib/metrics'], 'lib/poller emits events (lib/poller/events.ts); lib/metrics observes them.'),
        refuse(
          [
            'lib/worker',
            'lib/deliver',
            'lib/webhooks',
            'lib/alertmanager',
            'lib/config',
            'lib/cli',
            'lib/demo',
          ],
          'A role does not import another role; lib/worker composes them.',
        ),
        refuse(web, 'The poll role serves the web layer through the store, never by importing it.'),
      ],
    ),
    // The other roles: no web layer, no entry points.
    block(
      [
        'lib/deliver/**',
        'lib/webhooks/**',
        'lib/alertmanager/**',
        'lib/worker/**',
        'lib/config/**',
        'lib/metrics/**',
      ],
      [
        STORE_DOOR,
        refuse(
          ['lib/api', 'lib/auth', 'lib/query', 'lib/ui', 'components', 'app', 'lib/cli', 'lib/demo'],
          'Roles do not import the screens, the web layer or the entry points.',
        ),
      ],
      ['lib/deliver/plan.ts'],
    ),
    // Alert sinks and webhooks are two kinds of one delivery (lib/deliver): neither imports the other, nor
    // the delivery loop that sends them.
    block(
      ['lib/alertmanager/**'],
      [
        STORE_DOOR,
        refuse(
          ['lib/webhooks', 'lib/deliver', 'lib/api', 'lib/auth', 'lib/query', 'lib/ui', 'components', 'app'],
          'lib/alertmanager decides which alerts fire: no web layer, and neither lib/deliver (which sends them) nor lib/webhooks.',
        ),
      ],
    ),
    block(
      ['lib/webhooks/**'],
      [
        STORE_DOOR,
        refuse(
          ['lib/alertmanager', 'lib/api', 'lib/auth', 'lib/query', 'lib/ui', 'components', 'app'],
          'lib/webhooks manages webhook endpoints: no web layer, and no lib/alertmanager (the other kind of delivery).',
        ),
      ],
    ),
    // The screens read through the API: no store, no roles.
    block(
      ['components/**', 'lib/ui/**', 'lib/query/**'],
      [
        STORE_DOOR,
        refuse(
          ['db', ...roles, 'lib/api'],
          'The screens read through the API (lib/query); they import no store or role.',
        ),
      ],
    ),
    // The store returns data: presentation, client queries, the web layer and the roles live outside db/
    // and build on it. Policy (secrets, tokens, envelopes, alert decisions) lives with the module that owns it.
    block(
      ['db/**'],
      [
        refuse(['lib/ui'], 'db/ returns data; shape it for the screens in lib/ui or lib/api/read-model.ts.'),
        refuse(['lib/query'], 'db/ must not depend on the client; take result types from lib/schemas.'),
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
        refuse(
          [
            'lib/poller',
            'lib/worker',
            'lib/api',
            'lib/metrics',
            'lib/config',
            'lib/cli',
            'lib/demo',
            'lib/host-check',
          ],
          'db/ is repositories: it never imports a role, the web layer or an entry point.',
        ),
        refuse(
          ['lib/webhooks', 'lib/alertmanager', 'lib/auth'],
          'db/ is repositories: policy lives with the module that owns it; take its result as a parameter.',
        ),
        {
          // The outbox write inserts what the pure plan (lib/deliver/plan.ts) returns; the rest is a role.
          group: ['@/lib/deliver/*', '**/lib/deliver/*', '!@/lib/deliver/plan', '!**/lib/deliver/plan'],
          message: 'db/ never imports a role: only the outbox plan (lib/deliver/plan.ts) is pure.',
        },
        refuse(
          ['lib/rollout/validate', 'lib/schemas/common', 'lib/balancers'],
          'db/ takes validated input: the route schema or the module that owns the rule checks it first.',
        ),
      ],
    ),
  ];
}

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
  // The layers and what each may import (docs/architecture.md). A block per layer carries the store door
  // too: flat config replaces, not merges, a rule's options for the files two blocks share.
  ...layers(),
  {
    // Settings are read once, by lib/settings.ts, and handed down; nothing else reads the environment.
    files: ['app/**', 'components/**', 'lib/**', 'db/**', 'bench/**', 'bin/**', 'scripts/**', '*.ts'],
    // next.config.ts and the tools' own configs are read by Next.js, drizzle-kit, vitest and Playwright.
    ignores: ['lib/settings.ts', 'lib/peers/servers/**', 'next.config.ts', '*.config.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message:
            'Read settings from the Settings object you are handed (lib/settings.ts); child processes take childEnvironment().',
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
    // Each engine has its own drizzle database and tables (db/index.ts): nothing in the store is cast to
    // another type through unknown.
    files: ['db/**'],
    rules: { 'no-restricted-syntax': ['error', NO_CAST_THROUGH_UNKNOWN] },
  },
  {
    // One query layer for every engine: only builders that PostgreSQL has too (no .get/.all/.run/.values).
    // Flat config replaces a rule's options for the files two blocks share: the cast rule is repeated.
    files: ['db/queries/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        NO_CAST_THROUGH_UNKNOWN,
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
