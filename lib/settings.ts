// Every setting Erawatch reads from its environment, in one zod schema. Each entry point (the web process, the
// worker, every CLI command, the demo) parses it once at start-up and passes the result down; nothing else reads
// the environment. A bad value is one line naming the variable, and start-up stops with exit code 2.
import { isIP } from 'node:net';
import proxyaddr from 'proxy-addr';
import { z } from 'zod';
import { regionProblem } from '@/lib/region';

export type Env = Readonly<Record<string, string | undefined>>;

export const ROLES = ['poll', 'deliver', 'maintain'] as const;
export type Role = (typeof ROLES)[number];

type Parsed<T> = { ok: true; value: T } | { ok: false; why: string };
const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const bad = (why: string): Parsed<never> => ({ ok: false, why });

/**
 * An unset or blank variable takes `fallback`; any other value must pass `parse` (given the value as set).
 * A refusal quotes the value, unless it is a secret.
 */
function entry<T>(fallback: T, parse: (raw: string) => Parsed<T>, opts: { secret?: boolean } = {}) {
  return z
    .string()
    .optional()
    .transform((raw, ctx): T => {
      if (raw === undefined || raw.trim() === '') return fallback;
      const parsed = parse(raw);
      if (parsed.ok) return parsed.value;
      ctx.addIssue({ code: 'custom', message: opts.secret ? parsed.why : `${parsed.why}, got '${raw}'` });
      return z.NEVER;
    });
}

function integer(min: number, max: number) {
  return (raw: string): Parsed<number> => {
    const n = Number(raw.trim());
    return Number.isInteger(n) && n >= min && n <= max
      ? ok(n)
      : bad(`must be an integer from ${min} to ${max}`);
  };
}

function positiveNumber(raw: string): Parsed<number> {
  const n = Number(raw.trim());
  return Number.isFinite(n) && n > 0 ? ok(n) : bad('must be a positive number');
}

function oneOf<const V extends string>(values: readonly V[]) {
  return (raw: string): Parsed<V> => {
    const v = raw.trim();
    return (values as readonly string[]).includes(v) ? ok(v as V) : bad(`must be ${values.join(' or ')}`);
  };
}

const text = (raw: string): Parsed<string> => ok(raw.trim());

export function parseRoles(raw: string): Parsed<Role[]> {
  const names = raw
    .split(',')
    .map((r) => r.trim())
    .filter((r) => r !== '');
  if (names.length === 0) return bad(`needs at least one of ${ROLES.join(', ')}`);
  const roles: Role[] = [];
  for (const name of names) {
    const role = ROLES.find((r) => r === name);
    if (!role) return bad(`has an unknown role '${name}' (roles: ${ROLES.join(', ')})`);
    if (!roles.includes(role)) roles.push(role);
  }
  return ok(roles);
}

function httpUrl(raw: string): Parsed<string> {
  const v = raw.trim();
  try {
    const u = new URL(v);
    if (u.protocol === 'http:' || u.protocol === 'https:') return ok(v.replace(/\/+$/, ''));
  } catch {
    // reported below
  }
  return bad('must be an http(s) URL');
}

/** Comma-separated IP addresses or CIDR ranges (proxy-addr's syntax, which also checks them). */
function trustedProxies(raw: string): Parsed<string[]> {
  const list = raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  try {
    proxyaddr.compile(list);
  } catch (err) {
    return bad(
      `must be IP addresses or CIDR ranges, comma-separated (${err instanceof Error ? err.message : 'invalid'})`,
    );
  }
  return ok(list);
}

export const MIN_ADMIN_SECRET_LENGTH = 16;
export const DEFAULT_OIDC_SCOPES = ['openid', 'email', 'profile', 'groups'];

/** Comma- or space-separated names (OAuth scopes never contain a space), blanks dropped. */
function scopeList(raw: string): string[] {
  return raw
    .split(/[,\s]+/)
    .map((v) => v.trim())
    .filter(Boolean);
}

/**
 * Comma-separated group names: split on commas only, so a name keeps its inner spaces (`Platform Admins` is
 * one group, never `Platform` and `Admins`); each name trimmed at its ends, blanks dropped.
 */
export function groupList(raw: string): string[] {
  return raw
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
}

/** A secret: the value itself, or `env:NAME` naming the variable that holds it (read where it is used). */
function secretValue(raw: string): Parsed<string> {
  const v = raw.trim();
  if (v.startsWith('env:') && !/^env:[A-Za-z_][A-Za-z0-9_]*$/.test(v))
    return bad('env: must be followed by a variable name');
  return ok(v);
}
const DEFAULT_DB_FILE = './data/erawatch.db';

const SettingsShape = z.object({
  ERAWATCH_DB: entry<string | null>(null, text),
  ERAWATCH_ADMIN_SECRET: entry<string | null>(
    null,
    (raw) =>
      raw.trim().length >= MIN_ADMIN_SECRET_LENGTH
        ? ok(raw.trim())
        : bad(
            `is too short: use at least ${MIN_ADMIN_SECRET_LENGTH} characters (for example: openssl rand -base64 32)`,
          ),
    { secret: true },
  ),
  ERAWATCH_OIDC_ISSUER: entry<string | null>(null, httpUrl),
  ERAWATCH_OIDC_CLIENT_ID: entry<string | null>(null, text),
  ERAWATCH_OIDC_CLIENT_SECRET: entry<string | null>(null, secretValue, { secret: true }),
  ERAWATCH_OIDC_SCOPES: entry(DEFAULT_OIDC_SCOPES, (raw) => {
    const scopes = scopeList(raw);
    return scopes.includes('openid') ? ok(scopes) : bad('must include openid');
  }),
  ERAWATCH_OIDC_GROUPS_CLAIM: entry('groups', text),
  ERAWATCH_OIDC_ADMIN_GROUPS: entry<string[]>([], (raw) => ok(groupList(raw))),
  ERAWATCH_OIDC_OPERATOR_GROUPS: entry<string[]>([], (raw) => ok(groupList(raw))),
  ERAWATCH_OIDC_VIEWER_GROUPS: entry<string[]>([], (raw) => ok(groupList(raw))),
  ERAWATCH_AUDIT_RETENTION_DAYS: entry(365, positiveNumber),
  ERAWATCH_ALLOWED_HOSTS: entry<string[] | 'any' | null>(null, (raw) =>
    raw.trim() === '*'
      ? ok('any')
      : ok(
          raw
            .split(',')
            .map((h) => h.trim())
            .filter(Boolean),
        ),
  ),
  ERAWATCH_BIND: entry<string | null>(null, text),
  ERAWATCH_TRUSTED_PROXIES: entry<string[]>([], trustedProxies),
  ERAWATCH_MAX_CONCURRENT_REQUESTS: entry(32, integer(0, 100_000)),
  ERAWATCH_CONFIG: entry<string | null>(null, text),
  ERAWATCH_POLLER: entry('on', oneOf(['on', 'off'])),
  ERAWATCH_ROLES: entry<Role[] | null>(null, (raw) => (raw.trim() === 'none' ? ok([]) : parseRoles(raw))),
  ERAWATCH_POLLER_CONCURRENCY: entry(64, integer(1, 10_000)),
  ERAWATCH_REGION: entry('default', (raw) => {
    const problem = regionProblem(raw);
    return problem ? bad(problem) : ok(raw);
  }),
  ERAWATCH_PROBE_SOURCE_ADDRESS: entry<string | null>(null, (raw) =>
    isIP(raw.trim()) === 0 ? bad('must be an IP address of this host') : ok(raw.trim()),
  ),
  ERAWATCH_POLL_LEASE_TTL_MS: entry(15_000, integer(1_000, 15_000)),
  ERAWATCH_ALLOW_LOOPBACK: entry('0', oneOf(['0', '1'])),
  ERAWATCH_WEBHOOK_ALLOW_PRIVATE: entry('0', oneOf(['0', '1'])),
  ERAWATCH_WEBHOOKS: entry('on', oneOf(['on', 'off'])),
  ERAWATCH_WEBHOOK_DISABLE_AFTER_DAYS: entry(5, positiveNumber),
  ERAWATCH_PUBLIC_URL: entry('http://127.0.0.1:3000', httpUrl),
  ERAWATCH_RETENTION_DAYS: entry(30, positiveNumber),
  ERAWATCH_RATE_LIMIT: entry(6_000, integer(0, 10_000_000)),
  ERAWATCH_AUTH_FAILURE_LIMIT: entry(60, integer(0, 10_000_000)),
  ERAWATCH_UI_REFRESH_MS: entry(2_000, integer(500, 60_000)),
  ERAWATCH_GATE_FRESH_WAIT_MS: entry(8_000, integer(100, 60_000)),
  ERAWATCH_PG_POOL: entry(10, integer(1, 1000)),
  ERAWATCH_PG_STATEMENT_TIMEOUT_MS: entry(30_000, integer(0, 2_147_483_647)),
  ERAWATCH_MIGRATIONS: entry<string | null>(null, text),
  ERAWATCH_MIGRATIONS_PG: entry<string | null>(null, text),
});

export type SettingName = keyof z.input<typeof SettingsShape>;

/** OpenID Connect sign-in: the provider, the client, and which groups make which role. */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  /** The value, or `env:NAME`. */
  clientSecret: string;
  scopes: string[];
  groupsClaim: string;
  adminGroups: string[];
  operatorGroups: string[];
  viewerGroups: string[];
}

function oidcFrom(s: z.output<typeof SettingsShape>): OidcSettings | null {
  if (
    s.ERAWATCH_OIDC_ISSUER === null ||
    s.ERAWATCH_OIDC_CLIENT_ID === null ||
    s.ERAWATCH_OIDC_CLIENT_SECRET === null
  )
    return null;
  return {
    issuer: s.ERAWATCH_OIDC_ISSUER,
    clientId: s.ERAWATCH_OIDC_CLIENT_ID,
    clientSecret: s.ERAWATCH_OIDC_CLIENT_SECRET,
    scopes: s.ERAWATCH_OIDC_SCOPES,
    groupsClaim: s.ERAWATCH_OIDC_GROUPS_CLAIM,
    adminGroups: s.ERAWATCH_OIDC_ADMIN_GROUPS,
    operatorGroups: s.ERAWATCH_OIDC_OPERATOR_GROUPS,
    viewerGroups: s.ERAWATCH_OIDC_VIEWER_GROUPS,
  };
}

/** The schema: environment in, settings out (names the code uses). */
export const SettingsSchema = SettingsShape.superRefine((s, ctx) => {
  if (s.ERAWATCH_OIDC_ISSUER === null) return;
  for (const name of ['ERAWATCH_OIDC_CLIENT_ID', 'ERAWATCH_OIDC_CLIENT_SECRET'] as const) {
    if (s[name] === null)
      ctx.addIssue({ code: 'custom', path: [name], message: 'is required with ERAWATCH_OIDC_ISSUER' });
  }
  const groups = [
    ...s.ERAWATCH_OIDC_ADMIN_GROUPS,
    ...s.ERAWATCH_OIDC_OPERATOR_GROUPS,
    ...s.ERAWATCH_OIDC_VIEWER_GROUPS,
  ];
  if (groups.length === 0) {
    ctx.addIssue({
      code: 'custom',
      path: ['ERAWATCH_OIDC_VIEWER_GROUPS'],
      message:
        'or ERAWATCH_OIDC_OPERATOR_GROUPS or ERAWATCH_OIDC_ADMIN_GROUPS must name a group with ERAWATCH_OIDC_ISSUER',
    });
  }
}).transform((s) => ({
  db: s.ERAWATCH_DB ?? DEFAULT_DB_FILE,
  /** ERAWATCH_DB as set, null when unset (the demo then uses its own file). */
  dbNamed: s.ERAWATCH_DB,
  adminSecret: s.ERAWATCH_ADMIN_SECRET,
  allowedHosts: s.ERAWATCH_ALLOWED_HOSTS,
  /** Single sign-on from the environment; null when ERAWATCH_OIDC_ISSUER is unset (the config file may set it). */
  oidc: oidcFrom(s),
  auditRetentionMs: Math.round(s.ERAWATCH_AUDIT_RETENTION_DAYS * 86_400_000),
  bind: s.ERAWATCH_BIND,
  trustedProxies: s.ERAWATCH_TRUSTED_PROXIES,
  maxConcurrentRequests: s.ERAWATCH_MAX_CONCURRENT_REQUESTS,
  configFile: s.ERAWATCH_CONFIG,
  pollInWeb: s.ERAWATCH_POLLER === 'on',
  webRoles: s.ERAWATCH_ROLES,
  pollerConcurrency: s.ERAWATCH_POLLER_CONCURRENCY,
  region: s.ERAWATCH_REGION,
  probeSourceAddress: s.ERAWATCH_PROBE_SOURCE_ADDRESS,
  pollLeaseTtlMs: s.ERAWATCH_POLL_LEASE_TTL_MS,
  allowLoopback: s.ERAWATCH_ALLOW_LOOPBACK === '1',
  webhookAllowPrivate: s.ERAWATCH_WEBHOOK_ALLOW_PRIVATE === '1',
  deliverInWeb: s.ERAWATCH_WEBHOOKS === 'on',
  webhookDisableAfterMs: Math.round(s.ERAWATCH_WEBHOOK_DISABLE_AFTER_DAYS * 86_400_000),
  publicUrl: s.ERAWATCH_PUBLIC_URL,
  retentionMs: Math.round(s.ERAWATCH_RETENTION_DAYS * 86_400_000),
  rateLimit: s.ERAWATCH_RATE_LIMIT,
  authFailureLimit: s.ERAWATCH_AUTH_FAILURE_LIMIT,
  uiRefreshMs: s.ERAWATCH_UI_REFRESH_MS,
  gateFreshWaitMs: s.ERAWATCH_GATE_FRESH_WAIT_MS,
  pgPool: s.ERAWATCH_PG_POOL,
  pgStatementTimeoutMs: s.ERAWATCH_PG_STATEMENT_TIMEOUT_MS,
  migrationsFolder: s.ERAWATCH_MIGRATIONS,
  migrationsFolderPg: s.ERAWATCH_MIGRATIONS_PG,
}));

export interface Settings extends z.output<typeof SettingsSchema> {
  /**
   * The environment the settings were read from, for what is not a setting: variables an operator names
   * (`env:NAME` in headers and secrets, `${VAR}` in the config file), Next.js's own, and child processes.
   */
  readonly environment: Env;
}

/** What the docs say of each setting: its default as shown and its meaning. Checked against the README. */
export const SETTING_DOCS: Record<SettingName, { shown: string; meaning: string }> = {
  ERAWATCH_DB: {
    shown: '`./data/erawatch.db`',
    meaning: 'the SQLite file (created, migrated at start-up), or a `postgres://` URL',
  },
  ERAWATCH_ADMIN_SECRET: {
    shown: 'unset',
    meaning: `required off loopback: dashboard login and admin API (${MIN_ADMIN_SECRET_LENGTH} characters or more)`,
  },
  ERAWATCH_OIDC_ISSUER: {
    shown: 'unset',
    meaning:
      'single sign-on: the OpenID Connect issuer URL, discovered at `/.well-known/openid-configuration`',
  },
  ERAWATCH_OIDC_CLIENT_ID: { shown: 'unset', meaning: 'the client id registered at the provider' },
  ERAWATCH_OIDC_CLIENT_SECRET: {
    shown: 'unset',
    meaning: 'the client secret: the value, or `env:NAME` to read it from another variable',
  },
  ERAWATCH_OIDC_SCOPES: {
    shown: '`openid email profile groups`',
    meaning: 'the scopes asked for (comma- or space-separated; must include `openid`)',
  },
  ERAWATCH_OIDC_GROUPS_CLAIM: { shown: '`groups`', meaning: 'the claim listing the user’s groups' },
  ERAWATCH_OIDC_ADMIN_GROUPS: {
    shown: 'none',
    meaning: 'groups whose members are admins (comma-separated; a name keeps its inner spaces)',
  },
  ERAWATCH_OIDC_OPERATOR_GROUPS: {
    shown: 'none',
    meaning: 'groups whose members are operators (comma-separated; a name keeps its inner spaces)',
  },
  ERAWATCH_OIDC_VIEWER_GROUPS: {
    shown: 'none',
    meaning:
      'groups whose members are viewers (comma-separated; a name keeps its inner spaces); a user in no listed group is refused',
  },
  ERAWATCH_AUDIT_RETENTION_DAYS: {
    shown: '365',
    meaning: 'audit entries older than this are pruned by the maintain role',
  },
  ERAWATCH_ALLOWED_HOSTS: {
    shown: 'bind host, localhost, machine name',
    meaning: 'with an admin secret, the `Host` names answered (comma-separated, `*` = any); see docs/api.md',
  },
  ERAWATCH_BIND: { shown: 'from `next start -H`', meaning: 'the bind host the start-up check judges' },
  ERAWATCH_TRUSTED_PROXIES: {
    shown: 'none',
    meaning:
      'proxies (IP addresses or CIDRs, comma-separated) whose `X-Forwarded-For` names the client; see docs/deployment.md',
  },
  ERAWATCH_MAX_CONCURRENT_REQUESTS: {
    shown: '32',
    meaning:
      'requests the web process serves at once; more get 429 `overloaded` with `Retry-After` (`0` = off)',
  },
  ERAWATCH_CONFIG: {
    shown: '`./erawatch.config.yaml` if present',
    meaning: 'config as code, applied at start-up',
  },
  ERAWATCH_POLLER: {
    shown: '`on`',
    meaning: '`off` keeps the poll role out of the web process (run `erawatch worker` instead)',
  },
  ERAWATCH_ROLES: {
    shown: 'all',
    meaning: 'the worker roles the web process runs: `poll,deliver,maintain`, a subset, or `none`',
  },
  ERAWATCH_POLLER_CONCURRENCY: { shown: '64', meaning: 'probes in flight across all balancers (1 to 10000)' },
  ERAWATCH_REGION: {
    shown: '`default`',
    meaning: 'the region this process probes from (lowercase letters, digits, `-`; 1–63 characters)',
  },
  ERAWATCH_PROBE_SOURCE_ADDRESS: {
    shown: 'unset',
    meaning: 'the local IP address probe connections bind (a host in several networks); see docs/worker.md',
  },
  ERAWATCH_POLL_LEASE_TTL_MS: {
    shown: '15000',
    meaning:
      'how long a poll unit stays claimed without renewal (1000 to 15000); a dead worker is replaced after it',
  },
  ERAWATCH_ALLOW_LOOPBACK: {
    shown: '`0`',
    meaning: '`1` lets the poller and webhooks reach loopback (demo, tests)',
  },
  ERAWATCH_WEBHOOK_ALLOW_PRIVATE: { shown: '`0`', meaning: '`1` lets webhooks reach private addresses' },
  ERAWATCH_WEBHOOKS: { shown: '`on`', meaning: '`off` keeps the deliver role out of the web process' },
  ERAWATCH_WEBHOOK_DISABLE_AFTER_DAYS: { shown: '5', meaning: 'an endpoint failing this long is disabled' },
  ERAWATCH_PUBLIC_URL: {
    shown: '`http://127.0.0.1:3000`',
    meaning: 'the dashboard’s address as operators reach it, linked from Alertmanager alerts',
  },
  ERAWATCH_RETENTION_DAYS: {
    shown: '30',
    meaning:
      'node history, hourly rollups and events older than this are pruned (webhook deliveries: 30 days)',
  },
  ERAWATCH_RATE_LIMIT: {
    shown: '6000',
    meaning: 'API requests per minute per credential, all of which may come at once (`0` = off)',
  },
  ERAWATCH_AUTH_FAILURE_LIMIT: {
    shown: '60',
    meaning: 'failed credentials per minute per client address, then locked out even with the right secret',
  },
  ERAWATCH_UI_REFRESH_MS: { shown: '2000', meaning: 'how often the dashboard refreshes (500 to 60000)' },
  ERAWATCH_GATE_FRESH_WAIT_MS: {
    shown: '8000',
    meaning: 'how long the gate’s `fresh=true` and probe-now wait for the cycles they ask for (100 to 60000)',
  },
  ERAWATCH_PG_POOL: { shown: '10', meaning: 'PostgreSQL connections per process (1 to 1000)' },
  ERAWATCH_PG_STATEMENT_TIMEOUT_MS: {
    shown: '30000',
    meaning: 'PostgreSQL `statement_timeout` of every session (`0` = none)',
  },
  ERAWATCH_MIGRATIONS: { shown: '`db/migrations`', meaning: 'where the SQLite migrations are read from' },
  ERAWATCH_MIGRATIONS_PG: {
    shown: '`db/migrations-pg`',
    meaning: 'where the PostgreSQL migrations are read from',
  },
};

export const SETTING_NAMES = Object.keys(SettingsShape.shape) as SettingName[];

/** The settings could not be read: one line per bad value, each naming its variable. */
export class SettingsError extends Error {
  override readonly name = 'SettingsError';
  constructor(readonly lines: string[]) {
    super(lines.join('\n'));
  }
}

/** Reads every setting from `env`; throws SettingsError with one line per bad value. */
export function parseSettings(env: Env): Settings {
  const parsed = SettingsSchema.safeParse(env);
  if (!parsed.success) {
    throw new SettingsError(parsed.error.issues.map((i) => `${i.path.map(String).join('.')} ${i.message}`));
  }
  return { ...parsed.data, environment: env };
}

/** Settings for code that is handed no environment: every default (tests, tools). */
export function defaultSettings(overrides: Partial<Settings> = {}): Settings {
  return { ...parseSettings({}), ...overrides };
}

const GLOBAL_KEY = Symbol.for('erawatch.settings');
type GlobalWithSettings = typeof globalThis & { [GLOBAL_KEY]?: Settings };

/**
 * This process's settings, read from its environment on first use and kept: what route handlers and the
 * start-up hook share. Throws SettingsError when a value is bad.
 */
export function processSettings(): Settings {
  const g = globalThis as GlobalWithSettings;
  g[GLOBAL_KEY] ??= parseSettings(process.env);
  return g[GLOBAL_KEY];
}

/** Makes `settings` this process's (a benchmark or test that serves routes in-process). */
export function setProcessSettings(settings: Settings): void {
  (globalThis as GlobalWithSettings)[GLOBAL_KEY] = settings;
}

/** Forgets the process's settings so the next use reads the environment again (tests that change it). */
export function resetProcessSettings(): void {
  delete (globalThis as GlobalWithSettings)[GLOBAL_KEY];
}

/**
 * The variables an operator names outside the settings (`env:NAME` secrets in a host file or a probe flag):
 * the environment this process's settings were read from (the one read of it, in processSettings).
 */
export function processVariables(): Env {
  return processSettings().environment;
}

/** The environment for a child process (a stdio target, a peer, the demo's server): this one's, plus `extra`. */
export function childEnvironment(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  // The same variables as process.env (Next's typing of it only adds NODE_ENV as required).
  return { ...processVariables(), ...extra } as NodeJS.ProcessEnv;
}

/**
 * Sets variables in this process's environment for a server started in it (`erawatch serve` hands the
 * prebuilt server its host, port and absolute paths); the settings are read again on next use.
 */
export function setProcessEnvironment(vars: Readonly<Record<string, string>>): void {
  Object.assign(process.env, vars);
  resetProcessSettings();
}

/** Refusal lines as an entry point prints them: `erawatch worker: ERAWATCH_REGION must …`. */
export function refusalLines(prefix: string, err: SettingsError): string {
  return err.lines.map((l) => `${prefix}: ${l}\n`).join('');
}

/** The README's settings table, generated from the schema. */
export function settingsTable(): string {
  const rows = SETTING_NAMES.map((name) => {
    const doc = SETTING_DOCS[name];
    return `| \`${name}\` | ${doc.shown} | ${doc.meaning} |`;
  });
  return ['| variable | default | meaning |', '| --- | --- | --- |', ...rows].join('\n');
}
