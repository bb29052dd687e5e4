// Single sign-on in the config file (`auth.oidc`): validated like the rest of the file (file, line, field),
// used when the environment sets no issuer, and exported with the client secret as `${ENV}`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '@/db/index';
import { oidcSettingsOf } from '@/lib/auth/oidc-config';
import { exportConfig } from '@/lib/config/export';
import { ConfigError, parseConfig } from '@/lib/config/load';
import { parseSettings, SettingsError } from '@/lib/settings';
import { storeLocation } from '../../support/store';

let dir = '';
let store: Store;

const FILE = `version: 1
auth:
  oidc:
    issuer: https://sso.example.com/realms/platform/
    clientId: erawatch
    clientSecret: \${OIDC_SECRET}
    adminGroups: [platform-admins]
    viewerGroups: [engineering]
`;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-oidc-config-'));
  store = await openStore(await storeLocation(dir, 'oidc.db'), { settings: parseSettings({}) });
});

afterAll(async () => {
  await store?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const settings = (env: Record<string, string>) => parseSettings(env);

describe('auth.oidc in the config file', () => {
  it('reads the section with ${ENV} substituted and the defaults filled in', () => {
    const loaded = parseConfig(FILE, 'erawatch.config.yaml', settings({ OIDC_SECRET: 'from-env' }));
    expect(loaded.auth?.oidc).toEqual({
      issuer: 'https://sso.example.com/realms/platform',
      clientId: 'erawatch',
      clientSecret: 'from-env',
      scopes: ['openid', 'email', 'profile', 'groups'],
      groupsClaim: 'groups',
      adminGroups: ['platform-admins'],
      operatorGroups: [],
      viewerGroups: ['engineering'],
    });
  });

  it('refuses a bad section with the file, line and field', () => {
    const bad = `version: 1
auth:
  oidc:
    issuer: not a url
    clientId: erawatch
    clientSecret: env:1BAD
    scopes: [email]
`;
    let err: unknown;
    try {
      parseConfig(bad, 'erawatch.config.yaml', settings({}));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const fields = (err as ConfigError).issues.map((i) => `${i.line}:${i.field}`);
    expect(fields).toEqual(
      expect.arrayContaining(['4:auth.oidc.issuer', '6:auth.oidc.clientSecret', '7:auth.oidc.scopes']),
    );
  });

  it('applies when the environment sets no issuer; the environment wins when it does', () => {
    const file = path.join(dir, 'erawatch.config.yaml');
    fs.writeFileSync(file, FILE);
    const fromFile = oidcSettingsOf(settings({ ERAWATCH_CONFIG: file, OIDC_SECRET: 'x' }));
    expect(fromFile?.issuer).toBe('https://sso.example.com/realms/platform');
    const fromEnv = oidcSettingsOf(
      settings({
        ERAWATCH_CONFIG: file,
        ERAWATCH_OIDC_ISSUER: 'https://other.example.com',
        ERAWATCH_OIDC_CLIENT_ID: 'c',
        ERAWATCH_OIDC_CLIENT_SECRET: 'env:S',
        ERAWATCH_OIDC_VIEWER_GROUPS: 'all',
      }),
    );
    expect(fromEnv?.issuer).toBe('https://other.example.com');
    expect(oidcSettingsOf(settings({ ERAWATCH_CONFIG: path.join(dir, 'none.yaml') }))).toBeNull();
  });

  it('exports the section with the client secret as ${ENV}, never its value', async () => {
    const oidc = parseConfig(FILE, 'f', settings({ OIDC_SECRET: 'literal-secret' })).auth?.oidc ?? null;
    const { yaml, envNeeded } = await exportConfig(store, { includeSecrets: false, oidc });
    expect(yaml).not.toContain('literal-secret');
    expect(parse(yaml).auth.oidc.clientSecret).toBe('${ERAWATCH_OIDC_CLIENT_SECRET}');
    expect(envNeeded).toContain('ERAWATCH_OIDC_CLIENT_SECRET');
    const named = await exportConfig(store, {
      includeSecrets: false,
      oidc: oidc && { ...oidc, clientSecret: 'env:OIDC_SECRET' },
    });
    expect(parse(named.yaml).auth.oidc.clientSecret).toBe('${OIDC_SECRET}');
    // The export reads back as the same section.
    const again = parseConfig(named.yaml, 'exported', settings({ OIDC_SECRET: 'literal-secret' }));
    expect(again.auth?.oidc).toEqual(oidc);
  });
});

describe('the ERAWATCH_OIDC_* settings', () => {
  it('need a client and at least one group list with an issuer', () => {
    let err: unknown;
    try {
      parseSettings({ ERAWATCH_OIDC_ISSUER: 'https://sso.example.com' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SettingsError);
    const lines = (err as SettingsError).lines.join('\n');
    expect(lines).toContain('ERAWATCH_OIDC_CLIENT_ID is required with ERAWATCH_OIDC_ISSUER');
    expect(lines).toContain('ERAWATCH_OIDC_CLIENT_SECRET is required with ERAWATCH_OIDC_ISSUER');
    expect(lines).toContain('ERAWATCH_OIDC_VIEWER_GROUPS');
    expect(() => parseSettings({ ERAWATCH_OIDC_SCOPES: 'email profile' })).toThrow(/must include openid/);
  });
});
