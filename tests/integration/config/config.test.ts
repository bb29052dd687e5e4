import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '@/db/index';
import { getBalancerByName, listBalancers } from '@/db/queries/balancers';
import { getWebhookByName, listWebhooks } from '@/db/queries/webhooks';
import { applyConfig } from '@/lib/config/apply';
import { exportConfig } from '@/lib/config/export';
import { ConfigError, loadConfigFile, parseConfig } from '@/lib/config/load';
import { applyConfigAtStartup } from '@/lib/config/startup';
import { storeLocation } from '../../support/store';
import { parseSettings, processSettings } from '@/lib/settings';

const run = promisify(execFile);
let dir = '';
let store: Store;
let location = '';

const GOOD = `# fleet
version: 1
balancers:
  - name: edge
    publicUrl: https://mcp.example.com/mcp
    nodeUrls:
      - https://10.0.0.1/mcp
      - https://10.0.0.2/mcp
    headers:
      authorization: "Bearer \${EDGE_TOKEN}"
      x-tenant: env:TENANT
  - name: legacy-pool
    publicUrl: https://legacy.example.com/mcp
    allowLegacy: true
webhooks:
  - name: pager
    url: https://hooks.example.com/erawatch
    eventTypes: [balancer.diverged, rollout.stuck]
`;

const env: Record<string, string> = { EDGE_TOKEN: 's3cret-token' };

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

async function snapshot(s: Store) {
  return JSON.stringify({
    balancers: (await listBalancers(s, { limit: 500 })).items.map(({ summary: _s, ...b }) => b),
    webhooks: await listWebhooks(s, 0),
  });
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-config-'));
  location = await storeLocation(dir, 'config.db');
  store = await openStore(location, { settings: processSettings() });
});

afterAll(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('config as code', () => {
  it('applies a file, substituting ${ENV}, then re-applies it without changing anything', async () => {
    const file = write('good.yaml', GOOD);
    const first = await applyConfig(store, loadConfigFile(file, parseSettings(env)), 1_000);
    expect(first.created).toEqual(["balancer 'edge'", "balancer 'legacy-pool'", "webhook 'pager'"]);
    expect((await getBalancerByName(store, 'edge')).headers).toEqual({
      authorization: 'Bearer s3cret-token',
      'x-tenant': 'env:TENANT',
    });
    const secret = (await getWebhookByName(store, 'pager'))?.secret;
    expect(secret).toMatch(/^whsec_/);
    const before = await snapshot(store);
    const again = await applyConfig(store, loadConfigFile(file, parseSettings(env)), 2_000);
    expect(again.created).toEqual([]);
    expect(again.updated).toEqual([]);
    expect(again.unchanged).toHaveLength(3);
    expect(await snapshot(store)).toBe(before);
    expect((await getWebhookByName(store, 'pager'))?.secret).toBe(secret);
  });

  it('applies a changed field as an update of that entity only', async () => {
    const file = write(
      'changed.yaml',
      GOOD.replace('allowLegacy: true', 'allowLegacy: true\n    samplesPerCycle: 9'),
    );
    const s = await applyConfig(store, loadConfigFile(file, parseSettings(env)), 3_000);
    expect(s.updated).toEqual(["balancer 'legacy-pool'"]);
    expect((await getBalancerByName(store, 'legacy-pool')).samplesPerCycle).toBe(9);
    expect((await getBalancerByName(store, 'edge')).updatedAt).toBe(1_000);
  });

  it.each([
    ['a bad URL', GOOD.replace('https://10.0.0.2/mcp', 'not a url'), 8, 'balancers.0.nodeUrls.1', 'http'],
    [
      'an unknown field',
      GOOD.replace('    allowLegacy: true', '    allowLegacy: true\n    alowLegacy: true'),
      15,
      'balancers.1.alowLegacy',
      'alowLegacy',
    ],
    [
      'a duplicate name',
      GOOD.replace('name: legacy-pool', 'name: edge'),
      12,
      'balancers.1.name',
      'duplicates',
    ],
    [
      'a missing variable',
      GOOD.replace('EDGE_TOKEN', 'NOT_SET_ANYWHERE'),
      10,
      '',
      'NOT_SET_ANYWHERE is not set',
    ],
    [
      'broken YAML',
      GOOD.replace('x-tenant: env:TENANT', 'x-tenant: env:TENANT\n     bad: indent'),
      12,
      '',
      '',
    ],
    [
      'a private webhook URL',
      GOOD.replace('https://hooks.example.com/erawatch', 'http://192.168.1.5/hook'),
      17,
      'webhooks.0.url',
      'private',
    ],
  ])(
    '%s: the error names file, line and field, and nothing changes',
    async (_name, text, line, field, words) => {
      const before = await snapshot(store);
      const file = write('bad.yaml', text);
      let error: unknown;
      try {
        await applyConfig(store, loadConfigFile(file, parseSettings(env)));
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ConfigError);
      const issue = (error as ConfigError).issues[0];
      expect(issue?.file).toBe(file);
      if (line !== null) expect(issue?.line).toBe(line);
      else expect(issue?.line).toBeGreaterThan(0);
      expect(issue?.field).toBe(field);
      expect(issue?.message).toContain(words);
      expect((error as ConfigError).message).toContain(`${file}:${issue?.line}`);
      expect(await snapshot(store)).toBe(before);
    },
  );

  it('at start-up an invalid file is logged and the last good state kept', async () => {
    const before = await snapshot(store);
    const file = write(
      'startup-bad.yaml',
      GOOD.replace('publicUrl: https://legacy.example.com/mcp', 'publicUrl: 42'),
    );
    const lines: string[] = [];
    const result = await applyConfigAtStartup(store, parseSettings({ ...env, ERAWATCH_CONFIG: file }), (l) =>
      lines.push(l),
    );
    expect(result).toBeNull();
    expect(lines.join('\n')).toContain('keeping the last good state');
    expect(lines.join('\n')).toContain(`${file}:13: balancers.1.publicUrl`);
    expect(await snapshot(store)).toBe(before);
  });

  it('export round-trips: applying the export to a fresh database reproduces the registrations', async () => {
    const { yaml, envNeeded } = await exportConfig(store, { includeSecrets: false });
    expect(yaml).not.toContain('s3cret-token');
    expect(envNeeded).toEqual(['ERAWATCH_EDGE_AUTHORIZATION']);
    const exported = parseConfig(
      yaml,
      'export.yaml',
      parseSettings({ ERAWATCH_EDGE_AUTHORIZATION: 'Bearer s3cret-token' }),
    );
    expect((await applyConfig(store, exported)).unchanged).toHaveLength(3);

    const full = (await exportConfig(store, { includeSecrets: true })).yaml;
    const fresh = await openStore(await storeLocation(dir, 'fresh.db'), { settings: processSettings() });
    try {
      await applyConfig(fresh, parseConfig(full, 'full.yaml', parseSettings({})));
      const strip = async (s: Store) =>
        JSON.parse(await snapshot(s), (k: string, v: unknown) =>
          ['id', 'createdAt', 'updatedAt'].includes(k) ? undefined : v,
        ) as unknown;
      expect(await strip(fresh)).toEqual(await strip(store));
      expect((await getWebhookByName(fresh, 'pager'))?.secret).toBe(
        (await getWebhookByName(store, 'pager'))?.secret,
      );
    } finally {
      await fresh.close();
    }
  });

  it('the CLI checks a file and reports file:line on error with exit status 1', async () => {
    const bad = write('cli-bad.yaml', GOOD.replace('https://10.0.0.2/mcp', 'nope'));
    const bin = path.resolve(import.meta.dirname, '../../../bin/erawatch.mjs');
    const err = await run(process.execPath, [bin, 'config', 'check', bad], {
      env: { ...process.env, EDGE_TOKEN: 'x' },
      timeout: 30_000,
    }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err?.code).toBe(1);
    expect(err?.stderr).toContain(`${bad}:8: balancers.0.nodeUrls.1`);
    const good = write('cli-good.yaml', GOOD);
    const ok = await run(process.execPath, [bin, 'config', 'check', good], {
      env: { ...process.env, EDGE_TOKEN: 'x' },
      timeout: 30_000,
    });
    expect(ok.stdout).toContain('valid (2 balancers, 1 webhooks)');
  });

  it('a file over 8 MiB is refused before it is parsed: a clear line, exit status 1, nothing applied', async () => {
    const before = await snapshot(store);
    // One 9 MiB YAML string, what made the parser take gigabytes before its error.
    const huge = write('huge.yaml', `${GOOD}description: "${'x'.repeat(9 * 1024 * 1024)}"\n`);
    expect(() => loadConfigFile(huge, parseSettings(env))).toThrow(/more than the 8388608 \(8 MiB\)/);
    const bin = path.resolve(import.meta.dirname, '../../../bin/erawatch.mjs');
    const err = await run(process.execPath, [bin, 'config', 'apply', huge], {
      env: { ...process.env, EDGE_TOKEN: 'x', ERAWATCH_DB: location },
      timeout: 60_000,
    }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err?.code).toBe(1);
    expect(err?.stderr).toContain(`${huge}: the file is`);
    expect(err?.stderr).toContain('8 MiB');
    expect(await snapshot(store)).toBe(before);
  });
});
