// Alert sinks in erawatch.config.yaml: applied by name, credentials from ${ENV} or env:NAME, exported without
// literal secrets, and every bad entry reported with file:line and nothing applied.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '@/db/index';
import { findAlertSinkByName, listAlertSinks } from '@/db/queries/alert-sinks';
import { applyConfig } from '@/lib/config/apply';
import { exportConfig } from '@/lib/config/export';
import { ConfigError, parseConfig } from '@/lib/config/load';
import { configJsonSchema } from '@/lib/schemas/config';
import { storeLocation } from '../../support/store';
import { parseSettings, processSettings } from '@/lib/settings';

const FILE = `version: 1
alertSinks:
  - name: ops-am
    urls:
      - https://am-0.example.com
      - https://am-1.example.com
    auth:
      type: bearer
      token: "\${OPS_AM_TOKEN}"
    eventTypes: [balancer.diverged, rollout.stuck]
    resendIntervalMs: 30000
  - name: team-am
    urls: [https://am.team.example.com/alertmanager]
    auth: { type: basic, username: erawatch, password: env:TEAM_AM_PASSWORD }
`;

let dir = '';
let store: Store;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-sink-config-'));
  store = await openStore(await storeLocation(dir, 'config.db'), { settings: processSettings() });
});

afterAll(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('alert sinks in the config file', () => {
  it('applies, re-applies unchanged, exports ${ENV} for literals and keeps env:NAME, and round-trips', async () => {
    const first = await applyConfig(
      store,
      parseConfig(FILE, 'erawatch.config.yaml', parseSettings({ OPS_AM_TOKEN: 'tok-literal-42' })),
    );
    expect(first.created).toEqual(["alert sink 'ops-am'", "alert sink 'team-am'"]);
    const again = await applyConfig(
      store,
      parseConfig(FILE, 'erawatch.config.yaml', parseSettings({ OPS_AM_TOKEN: 'tok-literal-42' })),
    );
    expect(again.unchanged).toEqual(["alert sink 'ops-am'", "alert sink 'team-am'"]);
    expect((await findAlertSinkByName(store, 'ops-am'))?.alertmanager).toEqual({
      urls: ['https://am-0.example.com', 'https://am-1.example.com'],
      auth: { type: 'bearer', token: 'tok-literal-42' },
      resendIntervalMs: 30_000,
    });

    const { yaml, envNeeded } = await exportConfig(store, { includeSecrets: false });
    expect(yaml).not.toContain('tok-literal-42');
    expect(yaml).toContain('token: ${ERAWATCH_OPS_AM_TOKEN}');
    expect(yaml).toContain('password: env:TEAM_AM_PASSWORD');
    expect(envNeeded).toEqual(['ERAWATCH_OPS_AM_TOKEN']);

    const fresh = await openStore(await storeLocation(dir, 'fresh.db'), { settings: processSettings() });
    try {
      await applyConfig(
        fresh,
        parseConfig(yaml, 'export.yaml', parseSettings({ ERAWATCH_OPS_AM_TOKEN: 'tok-literal-42' })),
      );
      const strip = async (s: Store) =>
        (await listAlertSinks(s)).map(({ id: _i, createdAt: _c, updatedAt: _u, ...rest }) => rest);
      expect(await strip(fresh)).toEqual(await strip(store));
      expect((await findAlertSinkByName(fresh, 'ops-am'))?.alertmanager.auth).toEqual({
        type: 'bearer',
        token: 'tok-literal-42',
      });
    } finally {
      await fresh.close();
    }

    const changed = await applyConfig(
      store,
      parseConfig(
        FILE.replace('resendIntervalMs: 30000', 'resendIntervalMs: 120000'),
        'erawatch.config.yaml',
        parseSettings({ OPS_AM_TOKEN: 'tok-literal-42' }),
      ),
    );
    expect(changed.updated).toEqual(["alert sink 'ops-am'"]);
    expect((await findAlertSinkByName(store, 'ops-am'))?.alertmanager.resendIntervalMs).toBe(120_000);
  });

  it.each<[string, string, string]>([
    [
      'a metadata address',
      FILE.replace('https://am-1.example.com', 'http://169.254.169.254'),
      'x.yaml:6: alertSinks.0.urls.1',
    ],
    [
      'no URL',
      FILE.replace('urls: [https://am.team.example.com/alertmanager]', 'urls: []'),
      'x.yaml:13: alertSinks.1.urls',
    ],
    [
      'a resend interval too short',
      FILE.replace('resendIntervalMs: 30000', 'resendIntervalMs: 500'),
      'x.yaml:11: alertSinks.0.resendIntervalMs',
    ],
    [
      'a name taken by a webhook',
      `${FILE}webhooks:\n  - name: team-am\n    url: https://hooks.example.com/x\n`,
      'x.yaml:12: alertSinks.1.name: duplicates the name of webhooks[0]',
    ],
  ])('refuses %s with file:line and applies nothing', async (_what, text, where) => {
    const before = JSON.stringify(await listAlertSinks(store));
    let caught: unknown = null;
    try {
      await applyConfig(store, parseConfig(text, 'x.yaml', parseSettings({ OPS_AM_TOKEN: 'x' })));
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect(String((caught as Error).message)).toContain(where);
    expect(JSON.stringify(await listAlertSinks(store))).toBe(before);
  });

  it('the published JSON Schema describes alertSinks', () => {
    const schema = configJsonSchema() as {
      properties: Record<string, { items?: { properties?: Record<string, unknown> } }>;
    };
    expect(Object.keys(schema.properties.alertSinks?.items?.properties ?? {})).toEqual(
      expect.arrayContaining([
        'name',
        'kind',
        'urls',
        'auth',
        'eventTypes',
        'balancerIds',
        'resendIntervalMs',
        'enabled',
      ]),
    );
  });
});
