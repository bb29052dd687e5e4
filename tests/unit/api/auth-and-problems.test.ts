import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toJsonPointer, zodIssuesToParams } from '@/lib/api/problem';
import { RateLimiter } from '@/lib/api/rate-limit';
import { authModeFrom, bindHostFrom, isLoopbackHost, startupRefusal } from '@/lib/auth/mode';
import { issueSession, readCookie, verifySession } from '@/lib/auth/session';
import { displayPrefix, generateToken, looksLikeToken } from '@/lib/auth/tokens';
import { parseSettings, SettingsError } from '@/lib/settings';

const settingsOf = (env: Record<string, string>) => parseSettings(env);

describe('bind and admin secret', () => {
  it.each([
    [['next', 'start', '-H', '127.0.0.1'], {}, '127.0.0.1'],
    [['next', 'start', '--hostname', '::1'], {}, '::1'],
    [['next', 'start', '--hostname=0.0.0.0'], {}, '0.0.0.0'],
    [['next', 'start'], {}, '0.0.0.0'],
    [['next', 'start', '-H', '127.0.0.1'], { ERAWATCH_BIND: '10.0.0.5' }, '10.0.0.5'],
  ])('%j with %j binds %s', (argv, env, host) => {
    expect(bindHostFrom(argv, settingsOf(env))).toBe(host);
  });

  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['::1', true],
    ['[::1]', true],
    ['localhost', true],
    ['0.0.0.0', false],
    ['::', false],
    ['10.0.0.1', false],
    ['example.com', false],
  ])('%s is loopback: %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });

  it('refuses a public bind without a secret, with how to set one; accepts loopback or a secret', () => {
    const refusal = startupRefusal(authModeFrom(['next', 'start'], settingsOf({})));
    expect(refusal).toContain('refusing to listen on 0.0.0.0');
    expect(refusal).toContain('ERAWATCH_ADMIN_SECRET');
    expect(startupRefusal(authModeFrom(['-H', '127.0.0.1'], settingsOf({})))).toBeNull();
    const secret = settingsOf({ ERAWATCH_ADMIN_SECRET: 'x'.repeat(16) });
    expect(startupRefusal(authModeFrom([], secret))).toBeNull();
    // A short secret is a bad setting: refused by name, without echoing it.
    const short = (() => {
      try {
        return settingsOf({ ERAWATCH_ADMIN_SECRET: 'short-secret' });
      } catch (err) {
        return err;
      }
    })();
    expect(short).toBeInstanceOf(SettingsError);
    expect((short as SettingsError).lines).toEqual([
      'ERAWATCH_ADMIN_SECRET is too short: use at least 16 characters (for example: openssl rand -base64 32)',
    ]);
    expect(authModeFrom(['-H', '127.0.0.1'], settingsOf({})).local).toBe(true);
    expect(authModeFrom(['-H', '127.0.0.1'], secret).local).toBe(false);
  });
});

describe('sessions', () => {
  const secret = 'session-secret-0123456789';
  it('verifies its own cookie until it expires, and gives each login its own session id', () => {
    const { value, expiresAt, sid } = issueSession(secret, 1_000);
    expect(verifySession(value, secret, 2_000)).toEqual({ sid, expiresAt, role: 'admin', user: null });
    expect(verifySession(value, secret, expiresAt)).toBeNull();
    expect(issueSession(secret, 1_000).sid).not.toBe(sid);
    expect(sid).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('carries the signed-in user and their role; a role it does not know is refused', () => {
    const user = { sub: 'otto', email: 'otto@example.test', name: 'Otto' };
    const { value, sid, expiresAt } = issueSession(secret, 1_000, { user, role: 'operator' });
    expect(verifySession(value, secret, 2_000)).toEqual({ sid, expiresAt, role: 'operator', user });
    const [, mac] = value.split('.');
    const root = Buffer.from(JSON.stringify({ v: 2, sid: 'x', iat: 0, exp: 9e15, role: 'root' })).toString(
      'base64url',
    );
    expect(verifySession(`${root}.${mac ?? ''}`, secret, 2_000)).toBeNull();
  });

  it('rejects a tampered cookie, one signed with another secret, and one of the old format', () => {
    const { value } = issueSession(secret, 1_000);
    const [payload, mac] = value.split('.');
    const forged = Buffer.from(JSON.stringify({ v: 2, sid: 'x', iat: 0, exp: 9e15 })).toString('base64url');
    expect(verifySession(`${forged}.${mac ?? ''}`, secret, 2_000)).toBeNull();
    expect(verifySession(`${payload ?? ''}.AAAA`, secret, 2_000)).toBeNull();
    expect(verifySession(value, 'another-secret-0123456789', 2_000)).toBeNull();
    expect(verifySession('garbage', secret, 2_000)).toBeNull();
    // Signed right, but without a session id a logout could not end it.
    const old = Buffer.from(JSON.stringify({ v: 1, iat: 0, exp: 9e15 })).toString('base64url');
    const oldMac = createHmac('sha256', createHmac('sha256', secret).update('erawatch-session-v1').digest())
      .update(old)
      .digest('base64url');
    expect(verifySession(`${old}.${oldMac}`, secret, 2_000)).toBeNull();
  });

  it('reads one cookie among several', () => {
    expect(readCookie('a=1; erawatch_session=abc.def; b=2', 'erawatch_session')).toBe('abc.def');
    expect(readCookie('a=1', 'erawatch_session')).toBeNull();
  });
});

describe('tokens', () => {
  it('are prefixed with their scope, random, and shown by a short prefix', () => {
    const a = generateToken('read');
    const b = generateToken('write');
    expect(a).toMatch(/^ewt_read_[A-Za-z0-9_-]{32}$/);
    expect(b).toMatch(/^ewt_write_[A-Za-z0-9_-]{32}$/);
    expect(looksLikeToken(a) && looksLikeToken(b)).toBe(true);
    expect(generateToken('read')).not.toBe(a);
    expect(displayPrefix(b)).toBe(b.slice(0, 'ewt_write_'.length + 6));
  });
});

describe('problem pointers', () => {
  it('escapes ~ and / as RFC 6901 requires', () => {
    expect(toJsonPointer(['headers', 'a/b~c'])).toBe('/headers/a~1b~0c');
    expect(toJsonPointer([])).toBe('/');
  });

  it('gives one pointer per invalid field', () => {
    const schema = z.object({ a: z.string(), list: z.array(z.int()) });
    const result = schema.safeParse({ a: 1, list: [1, 'x'] });
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(zodIssuesToParams(result.error).map((p) => p.pointer)).toEqual(['/a', '/list/1']);
    }
  });
});

describe('RateLimiter', () => {
  it('allows a burst, refuses beyond it with a retry time, and refills over time', () => {
    const limiter = new RateLimiter(60, 2);
    expect(limiter.take('k', 0).allowed).toBe(true);
    expect(limiter.take('k', 0).allowed).toBe(true);
    const refused = limiter.take('k', 0);
    expect(refused).toEqual({ allowed: false, retryAfterS: 1 });
    expect(limiter.take('other', 0).allowed).toBe(true);
    expect(limiter.take('k', 1_000).allowed).toBe(true);
  });

  it('is off at 0 per minute', () => {
    const limiter = new RateLimiter(0, 1);
    for (let i = 0; i < 100; i++) expect(limiter.take('k', 0).allowed).toBe(true);
  });
});
