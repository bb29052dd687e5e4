// Where the web server listens and whether an admin secret is set decide how requests authenticate. A
// loopback bind with no admin secret is "local mode": only this machine can connect, so the dashboard
// may read and write without a login (writes still need a same-origin Origin). Any other bind needs the secret.
import { isIP } from 'node:net';
import os from 'node:os';
import type { Settings } from '@/lib/settings';

export { MIN_ADMIN_SECRET_LENGTH } from '@/lib/settings';

type ModeSettings = Pick<Settings, 'bind' | 'adminSecret' | 'allowedHosts'>;

/** The host the server binds: ERAWATCH_BIND, else `next start -H/--hostname`, else all interfaces. */
export function bindHostFrom(argv: readonly string[], settings: Pick<Settings, 'bind'>): string {
  if (settings.bind) return settings.bind;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if ((arg === '-H' || arg === '--hostname') && argv[i + 1]) return argv[i + 1] ?? '';
    const eq = /^--hostname=(.+)$/.exec(arg);
    if (eq?.[1]) return eq[1];
  }
  // next start without -H listens on every interface.
  return '0.0.0.0';
}

export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || /^::ffff:127\./i.test(bare);
  return false;
}

export interface AuthMode {
  adminSecret: string | null;
  bindHost: string;
  /** Loopback bind and no admin secret: the dashboard needs no login. */
  local: boolean;
  /** Host names (lower case, IPv6 without brackets) answered when an admin secret is set; `any` turns the check off. */
  allowedHosts: ReadonlySet<string> | 'any';
}

const WILDCARD_BINDS = new Set(['0.0.0.0', '::', '[::]']);
const machineName = os.hostname().toLowerCase();

function bareHost(host: string): string {
  const h = host.trim().toLowerCase().replace(/\.$/, '');
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
}

/** ERAWATCH_ALLOWED_HOSTS (comma-separated, `*` for any), else the bind host, localhost, loopback and this machine's name. */
export function allowedHostsFrom(
  settings: Pick<Settings, 'allowedHosts'>,
  bindHost: string,
): ReadonlySet<string> | 'any' {
  const given = settings.allowedHosts;
  if (given === 'any') return 'any';
  if (given && given.length > 0) return new Set(given.map(bareHost).filter(Boolean));
  const names = ['localhost', '127.0.0.1', '::1', machineName];
  if (!WILDCARD_BINDS.has(bindHost)) names.push(bareHost(bindHost));
  return new Set(names);
}

/** The host name of a Host header value (port dropped, IPv6 unbracketed), or null when it is not one. */
export function hostNameOf(header: string): string | null {
  if (!/^[A-Za-z0-9.:[\]_-]+$/.test(header)) return null;
  try {
    const { hostname } = new URL(`http://${header}`);
    return hostname === '' ? null : bareHost(hostname);
  } catch {
    return null;
  }
}

export function authModeFrom(argv: readonly string[], settings: ModeSettings): AuthMode {
  const secret = settings.adminSecret;
  const bindHost = bindHostFrom(argv, settings);
  return {
    adminSecret: secret,
    bindHost,
    local: secret === null && isLoopbackHost(bindHost),
    allowedHosts: allowedHostsFrom(settings, bindHost),
  };
}

export function currentAuthMode(settings: ModeSettings): AuthMode {
  return authModeFrom(process.argv, settings);
}

/**
 * Null when the server may start with this configuration, else the message to exit with. `loopbackCommand` is
 * the command that binds to loopback, as the caller was started (`erawatch serve --host 127.0.0.1`).
 */
export function startupRefusal(mode: AuthMode, loopbackCommand = 'next start -H 127.0.0.1'): string | null {
  if (mode.adminSecret === null && !isLoopbackHost(mode.bindHost)) {
    return (
      `refusing to listen on ${mode.bindHost} (not loopback) without an admin secret. ` +
      'Set ERAWATCH_ADMIN_SECRET (at least 16 characters, e.g. ERAWATCH_ADMIN_SECRET="$(openssl rand -base64 32)"), ' +
      `or bind to loopback with \`${loopbackCommand}\`.`
    );
  }
  return null;
}

/**
 * Whether a request's Host is answered, for every route (pages, API, /readyz): the DNS-rebinding defence. Local
 * mode answers only loopback names; with an admin secret, the allowed host names. Null when answered.
 */
export function hostRefusal(host: string, mode: AuthMode): { code: string; detail: string } | null {
  const name = hostNameOf(host);
  if (mode.local) {
    if (name !== null && isLoopbackHost(name)) return null;
    return {
      code: 'host_not_loopback',
      detail: `local mode answers only loopback host names, not '${name ?? host.slice(0, 100)}'`,
    };
  }
  if (mode.adminSecret === null || mode.allowedHosts === 'any') return null;
  if (name !== null && mode.allowedHosts.has(name)) return null;
  return {
    code: 'host_not_allowed',
    detail: `this server does not answer the host name '${name ?? host.slice(0, 100)}'; add it to ERAWATCH_ALLOWED_HOSTS`,
  };
}
