// `erawatch config <export|apply|check|schema>`: config as code against the database at ERAWATCH_DB.
import fs from 'node:fs';
import { openStore } from '@/db/index';
import { applyConfig } from '@/lib/config/apply';
import { exportConfig } from '@/lib/config/export';
import { oidcSettingsOf } from '@/lib/auth/oidc-config';
import { ConfigError, loadConfigFile } from '@/lib/config/load';
import { configFileOf } from '@/lib/config/startup';
import type { Settings } from '@/lib/settings';
import { configJsonSchema } from '@/lib/schemas/config';
import { formatHelp, HELP_FLAG, usageLines, UsageError, type CommandHelp } from '../help';

export const HELP: CommandHelp = {
  usage: [
    'erawatch config export [--out FILE] [--include-secrets]',
    'erawatch config apply [FILE]',
    'erawatch config check [FILE]',
    'erawatch config schema',
  ],
  about:
    'Config as code against the database at ERAWATCH_DB. export writes the current balancers, webhooks and\n' +
    'alert sinks as YAML (literal secrets become ${ENV} references, listed on stderr); apply applies a file in\n' +
    'one transaction (entities matched by name); check validates a file without touching the database;\n' +
    'schema prints the JSON Schema of the file. FILE defaults to $ERAWATCH_CONFIG or ./erawatch.config.yaml.',
  flags: [
    ['--out FILE', 'export: write to FILE (mode 600) instead of stdout'],
    ['--include-secrets', 'export: write literal header values and webhook secrets instead of references'],
    HELP_FLAG,
  ],
  env: [
    ['ERAWATCH_DB', 'the SQLite file (default ./data/erawatch.db)'],
    ['ERAWATCH_CONFIG', 'the default FILE'],
  ],
  exitCodes: [
    [0, 'done (check: the file is valid)'],
    [1, 'the file is invalid or unreadable (file:line: field: message), or nothing was applied'],
    [2, 'bad usage: no or an unknown subcommand, or a flag apply or check does not take'],
  ],
};
const USAGE = usageLines(HELP);

/** apply and check take one optional FILE and no flags. */
function fileArg(sub: string, args: string[], settings: Settings): string {
  const flag = args.find((a) => a.startsWith('-'));
  if (flag)
    throw new UsageError(
      `config ${sub} takes no flags, got '${flag}' (the file is positional: config ${sub} FILE)`,
    );
  if (args.length > 1) throw new UsageError(`config ${sub} takes one FILE, got ${args.length}`);
  return args[0] ?? configFileOf(settings).file;
}

export async function run(argv: string[], settings: Settings): Promise<number> {
  const [sub, ...args] = argv;
  if (sub === '--help' || sub === '-h' || sub === 'help' || args.includes('--help') || args.includes('-h')) {
    process.stdout.write(formatHelp(HELP));
    return 0;
  }
  try {
    switch (sub) {
      case 'export': {
        const outIdx = args.indexOf('--out');
        const out = outIdx >= 0 ? args[outIdx + 1] : undefined;
        if (outIdx >= 0 && !out) throw new Error('--out needs a file name');
        const store = await openStore(settings.db, { name: 'config', settings });
        try {
          const { yaml, envNeeded } = await exportConfig(store, {
            includeSecrets: args.includes('--include-secrets'),
            oidc: oidcSettingsOf(settings),
          });
          if (out) fs.writeFileSync(out, yaml, { mode: 0o600 });
          else process.stdout.write(yaml);
          if (envNeeded.length > 0)
            process.stderr.write(`secrets left out; set ${envNeeded.join(', ')} before applying\n`);
        } finally {
          await store.close();
        }
        return 0;
      }
      case 'apply': {
        const file = fileArg('apply', args, settings);
        const config = loadConfigFile(file, settings);
        const store = await openStore(settings.db, { name: 'config', settings });
        try {
          const s = await applyConfig(store, config);
          process.stdout.write(
            `${file}: ${s.created.length} created, ${s.updated.length} updated, ${s.unchanged.length} unchanged\n`,
          );
          for (const [verb, list] of [
            ['created', s.created],
            ['updated', s.updated],
          ] as const) {
            for (const item of list) process.stdout.write(`  ${verb} ${item}\n`);
          }
        } finally {
          await store.close();
        }
        return 0;
      }
      case 'check': {
        const file = fileArg('check', args, settings);
        const config = loadConfigFile(file, settings);
        process.stdout.write(
          `${file}: valid (${config.balancers.length} balancers, ${config.webhooks.length} webhooks${config.stdio.length > 0 ? `, ${config.stdio.length} stdio targets` : ''})\n`,
        );
        return 0;
      }
      case 'schema':
        process.stdout.write(`${JSON.stringify(configJsonSchema(), null, 2)}\n`);
        return 0;
      default:
        process.stderr.write(USAGE);
        return 2;
    }
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`erawatch config: ${err.message}\n${USAGE}`);
      return 2;
    }
    process.stderr.write(
      `erawatch config: ${err instanceof ConfigError ? `\n${err.message}` : err instanceof Error ? err.message : String(err)}\n`,
    );
    return 1;
  }
}
