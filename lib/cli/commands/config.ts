// `erawatch config <export|apply|check|schema>`: config as code against the database at ERAWATCH_DB.
import fs from 'node:fs';
import { openDb, dbFileFromEnv } from '@/db/index';
import { applyConfig } from '@/lib/config/apply';
import { exportConfig } from '@/lib/config/export';
import { ConfigError, loadConfigFile } from '@/lib/config/load';
import { configFileFromEnv } from '@/lib/config/startup';
import { configJsonSchema } from '@/lib/schemas/config';

const USAGE = `usage:
  erawatch config export [--out FILE] [--include-secrets]   write current registrations as YAML
  erawatch config apply [FILE]                              apply a config file (default ERAWATCH_CONFIG or ./erawatch.config.yaml)
  erawatch config check [FILE]                              validate a config file without applying it
  erawatch config schema                                    print the JSON Schema of the config file
`;

function fileArg(args: string[]): string {
  return args.find((a) => !a.startsWith('-')) ?? configFileFromEnv().file;
}

export async function run(argv: string[]): Promise<number> {
  const [sub, ...args] = argv;
  try {
    switch (sub) {
      case 'export': {
        const outIdx = args.indexOf('--out');
        const out = outIdx >= 0 ? args[outIdx + 1] : undefined;
        if (outIdx >= 0 && !out) throw new Error('--out needs a file name');
        const store = openDb(dbFileFromEnv());
        try {
          const { yaml, envNeeded } = exportConfig(store, {
            includeSecrets: args.includes('--include-secrets'),
          });
          if (out) fs.writeFileSync(out, yaml, { mode: 0o600 });
          else process.stdout.write(yaml);
          if (envNeeded.length > 0)
            process.stderr.write(`secrets left out; set ${envNeeded.join(', ')} before applying\n`);
        } finally {
          store.close();
        }
        return 0;
      }
      case 'apply': {
        const file = fileArg(args);
        const config = loadConfigFile(file);
        const store = openDb(dbFileFromEnv());
        try {
          const s = applyConfig(store, config);
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
          store.close();
        }
        return 0;
      }
      case 'check': {
        const file = fileArg(args);
        const config = loadConfigFile(file);
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
    process.stderr.write(
      `erawatch config: ${err instanceof ConfigError ? `\n${err.message}` : err instanceof Error ? err.message : String(err)}\n`,
    );
    return 1;
  }
}
