// `erawatch serve [--host H] [--port P]`: the dashboard and the API from the prebuilt standalone server that
// ships in the package (dist/server), in this process, with the same environment as `npm start`.
import fs from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isPostgresUrl, redactUrl } from '@/db';
import { authModeFrom, isLoopbackHost, startupRefusal } from '@/lib/auth/mode';
import { DEFAULT_CONFIG_FILE } from '@/lib/config/load';
import { setProcessEnvironment, type Env, type Settings } from '@/lib/settings';
import { formatHelp, HELP_FLAG, usageLines, type CommandHelp } from '../help';
import { packageInfo, SERVER_DIR } from '../package-root';
import { applyFreshPreviewKeys, freshActionKey } from '../server-secrets';

const DEFAULT_HOST = '127.0.0.1';
const DEFAULT_PORT = 3000;

export const HELP: CommandHelp = {
  usage: ['erawatch serve [--host H] [--port P]'],
  about:
    'Serves the dashboard, the REST API, /metrics, /healthz and /readyz, and runs the worker roles the\n' +
    'environment leaves it (all by default), from the server built into the package. A relative ERAWATCH_DB\n' +
    'or ERAWATCH_CONFIG is taken from the directory serve starts in. SIGTERM or SIGINT stops it.',
  flags: [
    ['--host H', `the address to listen on (default ${DEFAULT_HOST}; any other needs ERAWATCH_ADMIN_SECRET)`],
    ['--port P', `the port, 1 to 65535 (default $PORT or ${DEFAULT_PORT})`],
    HELP_FLAG,
  ],
  env: [
    ['ERAWATCH_DB', 'the SQLite file or a postgres:// URL (default ./data/erawatch.db)'],
    ['ERAWATCH_ADMIN_SECRET', 'required on any non-loopback host: dashboard login and admin API'],
    ['PORT', 'the port when --port is not given'],
  ],
  exitCodes: [
    [
      1,
      'the server refused to start (no admin secret off loopback, an unusable store, the port taken); off\n' +
        '      loopback without a secret it refuses before starting anything',
    ],
    [2, 'bad usage (unknown flag, bad host or port); nothing was started'],
    [130, 'stopped by SIGINT (128 + 2, as `next start`)'],
    [143, 'stopped by SIGTERM (128 + 15)'],
  ],
};

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

export interface ServeArgs {
  host: string;
  port: number;
}

function parsePort(raw: string, name: string): number {
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port < 1 || port > 65_535) {
    throw new Error(`${name} must be a port from 1 to 65535, got '${raw}'`);
  }
  return port;
}

/** Reads the flags; throws one line naming the bad input. */
export function parseServeArgs(argv: string[], env: Env): ServeArgs | 'help' {
  let host = DEFAULT_HOST;
  let port: number | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = argv[i + 1];
    if (arg === '--help' || arg === '-h') return 'help';
    if (arg === '--host' && value !== undefined) {
      const bare = value.startsWith('[') && value.endsWith(']') ? value.slice(1, -1) : value;
      if (isIP(bare) === 0 && !HOST_NAME.test(bare)) {
        throw new Error(`--host must be an IP address or a host name, got '${value}'`);
      }
      host = bare;
      i++;
    } else if (arg === '--port' && value !== undefined) {
      port = parsePort(value, '--port');
      i++;
    } else {
      throw new Error(`unknown argument '${arg ?? ''}'`);
    }
  }
  const fromEnv = env.PORT?.trim();
  return { host, port: port ?? (fromEnv ? parsePort(fromEnv, 'PORT') : DEFAULT_PORT) };
}

/**
 * The environment the server starts with. The standalone server changes into its own folder, so the store
 * and config paths a user gave relative to where they ran `serve` are made absolute first.
 */
export function serverEnv(
  args: ServeArgs,
  settings: Pick<Settings, 'db' | 'configFile'>,
  cwd: string,
): Record<string, string> {
  const out: Record<string, string> = {
    HOSTNAME: args.host,
    PORT: String(args.port),
    // The start-up check judges the address actually bound (it refuses a public one without a secret).
    ERAWATCH_BIND: args.host,
  };
  const db = settings.db;
  if (!isPostgresUrl(db) && db !== ':memory:') out.ERAWATCH_DB = path.resolve(cwd, db);
  const config = settings.configFile?.trim();
  if (config) out.ERAWATCH_CONFIG = path.resolve(cwd, config);
  else if (fs.existsSync(path.resolve(cwd, DEFAULT_CONFIG_FILE)))
    out.ERAWATCH_CONFIG = path.resolve(cwd, DEFAULT_CONFIG_FILE);
  return out;
}

/** What a newcomer needs on start: where to look, where the data is, whether a login is needed and why. */
export function startGuide(
  args: ServeArgs,
  settings: Settings,
  serverEnvironment: Record<string, string>,
): string {
  const host = args.host.includes(':') ? `[${args.host}]` : args.host;
  const wildcard = args.host === '0.0.0.0' || args.host === '::';
  const url = `http://${wildcard ? '127.0.0.1' : host}:${args.port}`;
  const db = settings.db;
  const data = isPostgresUrl(db)
    ? `PostgreSQL at ${redactUrl(db)}`
    : db === ':memory:'
      ? 'in memory (ERAWATCH_DB=:memory:): nothing is kept after it stops'
      : `SQLite file ${serverEnvironment.ERAWATCH_DB ?? db} (set ERAWATCH_DB to move it)`;
  const mode = authModeFrom([], {
    bind: args.host,
    adminSecret: settings.adminSecret,
    allowedHosts: settings.allowedHosts,
  });
  const sso = settings.oidc ? `; single sign-on through ${settings.oidc.issuer}` : '';
  const login = mode.local
    ? `none: it listens on loopback (${args.host}) and no ERAWATCH_ADMIN_SECRET is set, so only this machine\n` +
      '              can connect (local mode). Set ERAWATCH_ADMIN_SECRET to require a login.'
    : mode.adminSecret !== null && isLoopbackHost(args.host)
      ? `the admin secret (ERAWATCH_ADMIN_SECRET is set)${sso}`
      : `the admin secret (ERAWATCH_ADMIN_SECRET): it listens beyond loopback (${args.host})${sso}`;
  // Local mode takes a same-origin write with no credential; otherwise the admin secret (or a write token).
  const credential = mode.local ? `-H 'origin: ${url}'` : '-H "authorization: Bearer $ERAWATCH_ADMIN_SECRET"';
  const register =
    `curl -X POST ${url}/api/v1/balancers -H 'content-type: application/json' ${credential} \\\n` +
    `                -d '{"name":"my-fleet","publicUrl":"https://mcp.example.com/mcp","nodeUrls":["https://10.0.0.5:8443/mcp"]}'`;
  const lines = [
    `Erawatch ${packageInfo().version}`,
    `  dashboard:  ${url}${wildcard ? ` (listening on every interface, ${args.host})` : ''}`,
    `  data:       ${data}`,
    `  login:      ${login}`,
    `  first balancer: open the dashboard and choose Register, or`,
    `              ${register}`,
    `              or list them in a config file (ERAWATCH_CONFIG; erawatch.config.example.yaml in the package).`,
  ];
  return `${lines.join('\n')}\n`;
}

export async function run(argv: string[], settings: Settings): Promise<number> {
  let args: ServeArgs | 'help';
  try {
    args = parseServeArgs(argv, settings.environment);
  } catch (err) {
    process.stderr.write(
      `erawatch serve: ${err instanceof Error ? err.message : String(err)}\n${usageLines(HELP)}`,
    );
    return 2;
  }
  if (args === 'help') {
    process.stdout.write(formatHelp(HELP));
    return 0;
  }
  const entry = path.join(packageInfo().root, SERVER_DIR, 'server.js');
  if (!fs.existsSync(entry)) {
    process.stderr.write(
      `erawatch serve: no built server at ${entry} (in a checkout, \`npm run build:package\` builds it; \`npm start\` needs none)\n`,
    );
    return 1;
  }
  // Refused before the server starts (and prints its banner), naming this command's way to stay on loopback.
  const refusal = startupRefusal(
    authModeFrom([], {
      bind: args.host,
      adminSecret: settings.adminSecret,
      allowedHosts: settings.allowedHosts,
    }),
    'erawatch serve --host 127.0.0.1',
  );
  if (refusal) {
    process.stderr.write(`erawatch serve: ${refusal}\n`);
    return 1;
  }
  const environment = serverEnv(args, settings, process.cwd());
  // This start's own keys: the package ships none (lib/cli/server-secrets.ts). Next.js prefers the server
  // actions' key from the environment; one the operator set (several servers sharing it) is kept.
  if (!settings.environment.NEXT_SERVER_ACTIONS_ENCRYPTION_KEY)
    environment.NEXT_SERVER_ACTIONS_ENCRYPTION_KEY = freshActionKey();
  process.stdout.write(startGuide(args, settings, environment));
  // The server reads its settings from the environment of this process, as `next start` does; it listens,
  // answers SIGTERM and SIGINT by closing, and exits with 1 when it cannot start.
  setProcessEnvironment(environment);
  applyFreshPreviewKeys(path.dirname(entry));
  await import(pathToFileURL(entry).href);
  return 0;
}
