// Which requests the front door sends to the login page, and what the login page says the server requires.
import { describe, expect, it } from 'vitest';
import { isDashboardPage, loginRedirectFor, loginRequirement } from '@/lib/auth/page-gate';
import { issueSession } from '@/lib/auth/session';

const SECRET = 'page-gate-secret-0123456789abcdef';
const NOW = 1_790_000_000_000;
const guarded = { local: false, adminSecret: SECRET };

function req(pathname: string, opts: { search?: string; cookie?: string; method?: string } = {}) {
  const headers = new Headers(opts.cookie ? { cookie: opts.cookie } : {});
  return { method: opts.method ?? 'GET', headers, nextUrl: { pathname, search: opts.search ?? '' } };
}

describe('loginRedirectFor', () => {
  it('sends a page without a session to /login with the page and its query as next', () => {
    expect(loginRedirectFor(req('/'), guarded, NOW)).toBe('/login?next=%2F');
    expect(loginRedirectFor(req('/events', { search: '?type=a&b=c' }), guarded, NOW)).toBe(
      `/login?next=${encodeURIComponent('/events?type=a&b=c')}`,
    );
    // A client-side navigation's RSC request returns to the page, not to its data request.
    expect(loginRedirectFor(req('/events', { search: '?_rsc=abc' }), guarded, NOW)).toBe(
      '/login?next=%2Fevents',
    );
    expect(loginRedirectFor(req('/balancers/bal_1', { method: 'HEAD' }), guarded, NOW)).toBe(
      '/login?next=%2Fbalancers%2Fbal_1',
    );
  });

  it('serves a page with a valid session, and refuses a forged, foreign or expired one', () => {
    const session = issueSession(SECRET, NOW);
    const cookie = `erawatch_session=${session.value}`;
    expect(loginRedirectFor(req('/settings', { cookie }), guarded, NOW)).toBeNull();
    const foreign = issueSession('another-secret-0123456789abcdef', NOW).value;
    expect(
      loginRedirectFor(req('/settings', { cookie: `erawatch_session=${foreign}` }), guarded, NOW),
    ).not.toBeNull();
    expect(
      loginRedirectFor(req('/settings', { cookie: 'erawatch_session=abc.def' }), guarded, NOW),
    ).not.toBeNull();
    expect(loginRedirectFor(req('/settings', { cookie }), guarded, session.expiresAt + 1)).not.toBeNull();
  });

  it('never redirects the API, the data routes, sign-in, operations endpoints, writes or local mode', () => {
    for (const path of [
      '/api/v1/balancers',
      '/api',
      '/dashboard-data/fleet',
      '/auth/login',
      '/auth/callback',
      '/login',
      '/healthz',
      '/readyz',
      '/metrics',
      '/api-docs',
      '/icon.svg',
      '/_next/data/x.json',
    ]) {
      expect(isDashboardPage(path), path).toBe(false);
      expect(loginRedirectFor(req(path), guarded, NOW), path).toBeNull();
    }
    expect(loginRedirectFor(req('/', { method: 'POST' }), guarded, NOW)).toBeNull();
    expect(loginRedirectFor(req('/'), { local: true, adminSecret: null }, NOW)).toBeNull();
  });
});

describe('loginRequirement', () => {
  it('says what this server requires, from its auth mode', () => {
    expect(loginRequirement({ local: true, adminSecret: null, bindHost: '127.0.0.1' }, false)).toContain(
      'listens on loopback (127.0.0.1) with no admin secret set, so the dashboard needs no login',
    );
    const onLoopback = loginRequirement({ local: false, adminSecret: SECRET, bindHost: '127.0.0.1' }, false);
    expect(onLoopback).toContain('has an admin secret set');
    expect(onLoopback).toContain('It listens on loopback (127.0.0.1).');
    expect(onLoopback).not.toContain('beyond loopback');
    expect(loginRequirement({ local: false, adminSecret: SECRET, bindHost: '0.0.0.0' }, false)).toContain(
      'It listens on 0.0.0.0, beyond loopback.',
    );
    expect(loginRequirement({ local: false, adminSecret: SECRET, bindHost: '0.0.0.0' }, true)).toContain(
      'organisation’s account',
    );
  });
});
