// Writes the current registrations as a config file. Literal probe header values, OAuth client secrets and
// webhook secrets are secrets: by default they become ${ENV} references (named in a comment) instead.
import { stringify } from 'yaml';
import type { Store } from '@/db/index';
import { getAlertSinkRow, listAlertSinks } from '@/db/queries/alert-sinks';
import { listBalancers, type Balancer } from '@/db/queries/balancers';
import { listStdioTargetRows } from '@/db/queries/stdio-targets';
import { listWebhooks, getWebhookRow } from '@/db/queries/webhooks';
import { CONFIG_VERSION } from '@/lib/schemas/config';
import type { OidcSettings } from '@/lib/settings';

export interface ExportOptions {
  includeSecrets: boolean;
  /** Single sign-on as this process has it (the environment's or the file's), written as `auth.oidc`. */
  oidc?: OidcSettings | null;
}

/** `auth.oidc` with the client secret as `${ENV}`: the variable an `env:NAME` names, else ERAWATCH_OIDC_CLIENT_SECRET. */
function exportOidc(
  oidc: OidcSettings,
  includeSecrets: boolean,
  envNeeded: string[],
): Record<string, unknown> {
  let clientSecret = oidc.clientSecret;
  if (!includeSecrets) {
    const name = clientSecret.startsWith('env:') ? clientSecret.slice(4) : 'ERAWATCH_OIDC_CLIENT_SECRET';
    envNeeded.push(name);
    clientSecret = `\${${name}}`;
  }
  return { ...oidc, clientSecret };
}

function envName(...parts: string[]): string {
  return parts
    .join('_')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

async function allBalancers(store: Store): Promise<Balancer[]> {
  const out: Balancer[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 10_000; page++) {
    const res = await listBalancers(store, { limit: 500, cursor });
    out.push(...res.items.map(({ summary: _s, ...b }) => b));
    if (!res.nextCursor) break;
    cursor = res.nextCursor;
  }
  return out;
}

export async function exportConfig(
  store: Store,
  opts: ExportOptions,
): Promise<{ yaml: string; envNeeded: string[] }> {
  const envNeeded: string[] = [];
  const balancers = (await allBalancers(store)).map((b) => exportBalancer(b, opts, envNeeded));
  const webhooks = [];
  for (const w of await listWebhooks(store)) {
    // The stored URL: the listing shows its query values redacted.
    const row = await getWebhookRow(store, w.id);
    webhooks.push({
      name: w.name,
      url: row.url,
      description: w.description,
      eventTypes: w.eventTypes,
      balancerIds: w.balancerIds,
      enabled: w.enabled,
      ...(opts.includeSecrets ? { secret: row.secret } : {}),
    });
  }
  // Alert sink credentials: `env:NAME` stays as written, a literal becomes a `${ENV}` reference.
  const alertSinks = [];
  for (const s of await listAlertSinks(store)) {
    const { auth } = (await getAlertSinkRow(store, s.id)).alertmanager;
    const hide = (value: string, what: string) => {
      if (opts.includeSecrets || value.startsWith('env:')) return value;
      const name = envName('ERAWATCH', s.name, what);
      envNeeded.push(name);
      return `\${${name}}`;
    };
    alertSinks.push({
      name: s.name,
      kind: s.kind,
      urls: s.urls,
      auth:
        auth.type === 'basic'
          ? { ...auth, password: hide(auth.password, 'password') }
          : auth.type === 'bearer'
            ? { ...auth, token: hide(auth.token, 'token') }
            : auth,
      description: s.description,
      eventTypes: s.eventTypes,
      balancerIds: s.balancerIds,
      resendIntervalMs: s.resendIntervalMs,
      enabled: s.enabled,
    });
  }
  const stdio = (await listStdioTargetRows(store)).map((t) => exportStdioTarget(t, opts, envNeeded));
  const auth = opts.oidc ? { oidc: exportOidc(opts.oidc, opts.includeSecrets, envNeeded) } : undefined;
  const header = [
    '# Erawatch configuration, exported from the database.',
    '# Schema: /api/v1/config.schema.json',
    ...(envNeeded.length > 0 ? [`# Set before applying: ${envNeeded.join(', ')}`] : []),
    '',
  ].join('\n');
  return {
    yaml:
      header +
      stringify({
        version: CONFIG_VERSION,
        balancers,
        webhooks,
        alertSinks,
        ...(auth ? { auth } : {}),
        stdio,
      }),
    envNeeded,
  };
}

/** A balancer's settings as the config file has them: a literal secret becomes a `${ENV}` reference. */
function exportBalancer(
  b: Awaited<ReturnType<typeof allBalancers>>[number],
  opts: ExportOptions,
  envNeeded: string[],
) {
  const { id: _id, createdAt: _c, updatedAt: _u, ...settings } = b;
  const headers = Object.fromEntries(
    Object.entries(settings.headers).map(([k, v]) => {
      if (opts.includeSecrets || v.startsWith('env:')) return [k, v];
      const name = envName('ERAWATCH', b.name, k);
      envNeeded.push(name);
      return [k, `\${${name}}`];
    }),
  );
  let auth = settings.auth;
  if (auth && !opts.includeSecrets && !auth.clientSecret.startsWith('env:')) {
    const name = envName('ERAWATCH', b.name, 'OAUTH_CLIENT_SECRET');
    envNeeded.push(name);
    auth = { ...auth, clientSecret: `\${${name}}` };
  }
  // A named node is written `{ url, name }` where it is listed; the file needs no separate `nodeNames`.
  const { nodeNames, ...rest } = settings;
  const listed = rest.nodeUrls.map((url) => {
    const name = nodeNames[url];
    return name === undefined ? url : { url, name };
  });
  return { ...rest, nodeUrls: listed, headers, auth };
}

/** A stdio target as the config file has it: env values that came from `${VAR}` are written as that template. */
function exportStdioTarget(
  t: Awaited<ReturnType<typeof listStdioTargetRows>>[number],
  opts: ExportOptions,
  envNeeded: string[],
) {
  const env = Object.fromEntries(
    Object.entries(t.env).map(([k, v]) => {
      const template = t.envTemplates[k];
      if (opts.includeSecrets || template === undefined) return [k, v];
      for (const m of template.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g))
        if (m[1] && !envNeeded.includes(m[1])) envNeeded.push(m[1]);
      return [k, template];
    }),
  );
  return {
    name: t.name,
    command: t.command,
    args: t.args,
    env,
    cwd: t.cwd,
    allowLegacy: t.allowLegacy,
    auditLegacy: t.auditLegacy,
    legacyVersions: t.legacyVersions,
    intervalMs: t.intervalMs,
    timeoutMs: t.timeoutMs,
    legacyProbeTimeoutMs: t.legacyProbeTimeoutMs,
    ...(t.regions.length > 0 ? { regions: t.regions } : {}),
  };
}
