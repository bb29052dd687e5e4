// One schema of every setting: defaults, the parsed values the code uses, and one line per bad value naming
// its variable (a secret's value never quoted).
import { describe, expect, it } from 'vitest';
import { parseSettings, SettingsError } from '@/lib/settings';

function refusal(env: Record<string, string>): string[] {
  try {
    parseSettings(env);
  } catch (err) {
    if (err instanceof SettingsError) return err.lines;
    throw err;
  }
  throw new Error('the settings were accepted');
}

describe('settings', () => {
  it('unset or blank, every setting takes its default', () => {
    const s = parseSettings({ ERAWATCH_REGION: '', ERAWATCH_POLLER_CONCURRENCY: ' ' });
    expect(s).toMatchObject({
      db: './data/erawatch.db',
      dbNamed: null,
      region: 'default',
      pollerConcurrency: 64,
      pollLeaseTtlMs: 15_000,
      allowLoopback: false,
      pollInWeb: true,
      deliverInWeb: true,
      webRoles: null,
      retentionMs: 30 * 86_400_000,
      gateFreshWaitMs: 8_000,
      publicUrl: 'http://127.0.0.1:3000',
      adminSecret: null,
    });
  });

  it('reads what is set, as the code uses it', () => {
    const s = parseSettings({
      ERAWATCH_DB: 'postgres://u@db/erawatch',
      ERAWATCH_REGION: 'eu-west',
      ERAWATCH_ROLES: 'deliver, poll,poll',
      ERAWATCH_POLLER: 'off',
      ERAWATCH_ALLOW_LOOPBACK: '1',
      ERAWATCH_RETENTION_DAYS: '0.5',
      ERAWATCH_PUBLIC_URL: 'https://erawatch.example/',
      ERAWATCH_ALLOWED_HOSTS: '*',
    });
    expect(s).toMatchObject({
      db: 'postgres://u@db/erawatch',
      region: 'eu-west',
      webRoles: ['deliver', 'poll'],
      pollInWeb: false,
      allowLoopback: true,
      retentionMs: 43_200_000,
      publicUrl: 'https://erawatch.example',
      allowedHosts: 'any',
    });
    expect(parseSettings({ ERAWATCH_ROLES: 'none' }).webRoles).toEqual([]);
  });

  it('refuses every bad value at once, one line each, naming the variable', () => {
    expect(
      refusal({
        ERAWATCH_REGION: 'EU-West',
        ERAWATCH_POLLER_CONCURRENCY: '0',
        ERAWATCH_ROLES: 'poll,probe',
        ERAWATCH_POLLER: 'no',
        ERAWATCH_PROBE_SOURCE_ADDRESS: 'eth0',
      }),
    ).toEqual([
      "ERAWATCH_POLLER must be on or off, got 'no'",
      "ERAWATCH_ROLES has an unknown role 'probe' (roles: poll, deliver, maintain), got 'poll,probe'",
      "ERAWATCH_POLLER_CONCURRENCY must be an integer from 1 to 10000, got '0'",
      "ERAWATCH_REGION must use lowercase letters, digits and -, 1 to 63 characters, got 'EU-West'",
      "ERAWATCH_PROBE_SOURCE_ADDRESS must be an IP address of this host, got 'eth0'",
    ]);
  });

  it('trusted proxies: none by default, addresses and CIDR ranges when set, a bad entry refused', () => {
    expect(parseSettings({}).trustedProxies).toEqual([]);
    expect(parseSettings({}).maxConcurrentRequests).toBe(32);
    expect(
      parseSettings({ ERAWATCH_TRUSTED_PROXIES: '10.0.0.0/8, fd00::/8,192.0.2.7' }).trustedProxies,
    ).toEqual(['10.0.0.0/8', 'fd00::/8', '192.0.2.7']);
    expect(refusal({ ERAWATCH_TRUSTED_PROXIES: '10.0.0.0/33' })).toEqual([
      expect.stringMatching(/^ERAWATCH_TRUSTED_PROXIES must be IP addresses or CIDR ranges, comma-separated/),
    ]);
  });

  it('group lists split on commas only: a group name keeps its inner spaces', () => {
    const s = parseSettings({
      ERAWATCH_OIDC_ISSUER: 'https://sso.example.test',
      ERAWATCH_OIDC_CLIENT_ID: 'erawatch',
      ERAWATCH_OIDC_CLIENT_SECRET: 'env:SSO_SECRET',
      ERAWATCH_OIDC_ADMIN_GROUPS: 'erawatch-admins,Platform Admins',
      ERAWATCH_OIDC_OPERATOR_GROUPS: ' sre , release managers ,, ',
      ERAWATCH_OIDC_VIEWER_GROUPS: 'Engineering All',
      ERAWATCH_OIDC_SCOPES: 'openid email,profile',
    });
    expect(s.oidc).toMatchObject({
      adminGroups: ['erawatch-admins', 'Platform Admins'],
      operatorGroups: ['sre', 'release managers'],
      viewerGroups: ['Engineering All'],
      // Scopes never hold a space: they still split on either.
      scopes: ['openid', 'email', 'profile'],
    });
  });

  it('never quotes a secret it refuses', () => {
    const lines = refusal({ ERAWATCH_ADMIN_SECRET: 'hunter2' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^ERAWATCH_ADMIN_SECRET is too short/);
    expect(lines[0]).not.toContain('hunter2');
  });
});
