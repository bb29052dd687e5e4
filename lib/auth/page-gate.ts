// Which requests for a page are sent to the login page: on a server that needs a login (an admin secret or
// single sign-on is set), a page asked for without a valid dashboard session goes to /login?next=<the page>.
// The API, the dashboard's data routes, the sign-in flow and the operations endpoints are never redirected:
// they answer 401 (or are public) as before. The cookie's signature and expiry are checked here; a session
// ended by a logout elsewhere is refused by the API, which the page then shows.
import { isLoopbackHost, type AuthMode } from './mode';
import { SESSION_COOKIE, readCookie, verifySession } from './session';

/** Path prefixes that are not dashboard pages: never redirected to the login page. */
const NOT_PAGES = ['/api/', '/dashboard-data/', '/auth/', '/_next/'];
/** Exact paths that are not dashboard pages, or are open to anyone. */
const OPEN_PATHS = new Set([
  '/login',
  '/healthz',
  '/readyz',
  '/metrics',
  '/api-docs',
  '/icon.svg',
  '/favicon.ico',
  '/robots.txt',
]);

/** True for a path the browser shows as a dashboard page (the fleet, a balancer, settings, …). */
export function isDashboardPage(pathname: string): boolean {
  if (OPEN_PATHS.has(pathname)) return false;
  return !NOT_PAGES.some((p) => pathname.startsWith(p) || pathname === p.slice(0, -1));
}

/** The same-site path a login returns to: the page asked for, with its query (less the router's `_rsc`). */
export function nextParamOf(pathname: string, search: string): string {
  const params = new URLSearchParams(search);
  params.delete('_rsc');
  const query = params.toString();
  return query ? `${pathname}?${query}` : pathname;
}

/**
 * Where to send a request instead of serving it (`/login?next=…`), or null to serve it: a GET or HEAD of a
 * dashboard page, on a server that is not in local mode, without a valid session cookie.
 */
export function loginRedirectFor(
  req: { method: string; headers: Headers; nextUrl: { pathname: string; search: string } },
  mode: Pick<AuthMode, 'local' | 'adminSecret'>,
  now: number,
): string | null {
  if (mode.local) return null;
  if (req.method !== 'GET' && req.method !== 'HEAD') return null;
  const { pathname, search } = req.nextUrl;
  if (!isDashboardPage(pathname)) return null;
  const cookie = readCookie(req.headers.get('cookie'), SESSION_COOKIE);
  if (cookie !== null && mode.adminSecret !== null && verifySession(cookie, mode.adminSecret, now) !== null) {
    return null;
  }
  return `/login?next=${encodeURIComponent(nextParamOf(pathname, search))}`;
}

/** What this server requires to sign in, said from its own auth mode (never a static claim about the bind). */
export function loginRequirement(
  mode: Pick<AuthMode, 'local' | 'adminSecret' | 'bindHost'>,
  sso: boolean,
): string {
  if (mode.local) {
    return `This Erawatch listens on loopback (${mode.bindHost}) with no admin secret set, so the dashboard needs no login: anyone on this machine may use it.`;
  }
  if (sso) return 'Sign in with your organisation’s account; your groups decide what you may do.';
  const where = isLoopbackHost(mode.bindHost)
    ? `It listens on loopback (${mode.bindHost})`
    : `It listens on ${mode.bindHost}, beyond loopback`;
  return `This Erawatch has an admin secret set (ERAWATCH_ADMIN_SECRET), so the dashboard needs it to log in. ${where}.`;
}
