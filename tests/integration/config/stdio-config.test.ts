import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '@/db/index';
import { listStdioTargetRows, listStdioTargets } from '@/db/queries/stdio-targets';
import { applyConfig } from '@/lib/config/apply';
import { exportConfig } from '@/lib/config/export';
import { ConfigError, loadConfigFile, parseConfig } from '@/lib/config/load';
import { configJsonSchema } from '@/lib/schemas/config';
import { storeLocation } from '../../support/store';
import { parseSettings, processSettings } from '@/lib/settings';

let dir = '';
let store: Store;

const GOOD = `version: 1
stdio:
  - name: archive
    command: node
    args: [servers/archive.mjs, --quiet]
    env:
      ARCHIVE_TOKEN: "\${ARCHIVE_TOKEN}"
      LOG_LEVEL: debug
    allowLegacy: true
    intervalMs: 20000
  - name: current
    command: ./bin/current
    cwd: tools
`;

const env = { ARCHIVE_TOKEN: 'tok-very-secret' };

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

const rows = async (s: Store) =>
  JSON.stringify((await listStdioTargetRows(s)).map(({ id: _i, createdAt: _c, updatedAt: _u, ...r }) => r));

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-stdio-config-'));
  store = await openStore(await storeLocation(dir, 'config.db'), { settings: processSettings() });
});

afterAll(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('stdio targets in erawatch.config.yaml', () => {
  it('applies the list with defaults, cwd relative to the file, then re-applies without changes', async () => {
    const file = write('erawatch.config.yaml', GOOD);
    const first = await applyConfig(store, loadConfigFile(file, parseSettings(env)), 1_000);
    expect(first.created).toEqual(["stdio target 'archive'", "stdio target 'current'"]);
    const [archive, current] = await listStdioTargetRows(store);
    expect(archive).toMatchObject({
      name: 'archive',
      command: 'node',
      args: ['servers/archive.mjs', '--quiet'],
      env: { ARCHIVE_TOKEN: 'tok-very-secret', LOG_LEVEL: 'debug' },
      envTemplates: { ARCHIVE_TOKEN: '${ARCHIVE_TOKEN}' },
      cwd: dir,
      allowLegacy: true,
      auditLegacy: false,
      intervalMs: 20_000,
      timeoutMs: 5_000,
      legacyProbeTimeoutMs: 3_000,
    });
    expect(current).toMatchObject({ cwd: path.join(dir, 'tools'), allowLegacy: false, args: [], env: {} });

    const again = await applyConfig(store, loadConfigFile(file, parseSettings(env)), 2_000);
    expect(again.unchanged).toEqual(["stdio target 'archive'", "stdio target 'current'"]);
    expect((await listStdioTargetRows(store)).every((r) => r.updatedAt === 1_000)).toBe(true);
  });

  it('the read view names env variables and never carries their values', async () => {
    const views = await listStdioTargets(store, 'default');
    const text = JSON.stringify(views);
    expect(text).not.toContain('tok-very-secret');
    expect(views[0]?.envNames).toEqual(['ARCHIVE_TOKEN', 'LOG_LEVEL']);
    expect(views[0]?.commandLine).toBe('ARCHIVE_TOKEN=… LOG_LEVEL=… node servers/archive.mjs --quiet');
  });

  it('a changed secret updates only that target', async () => {
    const file = write('erawatch.config.yaml', GOOD);
    const s = await applyConfig(
      store,
      loadConfigFile(file, parseSettings({ ARCHIVE_TOKEN: 'rotated' })),
      3_000,
    );
    expect(s.updated).toEqual(["stdio target 'archive'"]);
    expect(s.unchanged).toEqual(["stdio target 'current'"]);
    await applyConfig(store, loadConfigFile(file, parseSettings(env)), 4_000);
  });

  it.each([
    ['an empty command', GOOD.replace('command: node', 'command: ""'), 4, 'stdio.0.command', 'empty'],
    [
      'a misspelt allowLegacy',
      GOOD.replace('allowLegacy', 'alowLegacy'),
      9,
      'stdio.0.alowLegacy',
      'alowLegacy',
    ],
    ['a bad env name', GOOD.replace('LOG_LEVEL:', '1BAD:'), 8, 'stdio.0.env.1BAD', 'variable name'],
    [
      'a deadline above the interval',
      GOOD.replace('intervalMs: 20000', 'intervalMs: 5000'),
      3,
      'stdio.0.timeoutMs',
      'below intervalMs',
    ],
    ['a duplicate name', GOOD.replace('name: current', 'name: archive'), 11, 'stdio.1.name', 'duplicates'],
    ['a non-string argument', GOOD.replace('--quiet', '{a: 1}'), 5, 'stdio.0.args.1', 'string'],
    ['a missing variable', GOOD.replace('${ARCHIVE_TOKEN}', '${NOT_SET_HERE}'), 7, '', 'NOT_SET_HERE'],
  ])(
    '%s: the error names file, line and field, and nothing changes',
    async (_n, text, line, field, words) => {
      const before = await rows(store);
      const file = write('bad.yaml', text);
      let error: unknown;
      try {
        await applyConfig(store, loadConfigFile(file, parseSettings(env)));
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ConfigError);
      const issue = (error as ConfigError).issues[0];
      expect(issue?.line).toBe(line);
      expect(issue?.field).toBe(field);
      expect(issue?.message).toContain(words);
      expect((error as ConfigError).message).toContain(`${file}:${line}`);
      expect(await rows(store)).toBe(before);
    },
  );

  it('export writes ${ENV} values as their template, and round-trips', async () => {
    const { yaml, envNeeded } = await exportConfig(store, { includeSecrets: false });
    expect(yaml).not.toContain('tok-very-secret');
    expect(yaml).toContain('ARCHIVE_TOKEN: ${ARCHIVE_TOKEN}');
    expect(yaml).toContain('LOG_LEVEL: debug');
    expect(envNeeded).toContain('ARCHIVE_TOKEN');
    const reparsed = parseConfig(yaml, path.join(dir, 'export.yaml'), parseSettings(env));
    expect((await applyConfig(store, reparsed)).unchanged).toContain("stdio target 'archive'");

    const full = (await exportConfig(store, { includeSecrets: true })).yaml;
    expect(full).toContain('tok-very-secret');
    const fresh = await openStore(await storeLocation(dir, 'fresh.db'), { settings: processSettings() });
    try {
      await applyConfig(fresh, parseConfig(full, path.join(dir, 'full.yaml'), parseSettings({})));
      const strip = async (s: Store) =>
        (await listStdioTargetRows(s)).map(
          ({ id: _i, createdAt: _c, updatedAt: _u, envTemplates: _t, ...r }) => r,
        );
      expect(await strip(fresh)).toEqual(await strip(store));
    } finally {
      await fresh.close();
    }
  });

  it('the published JSON Schema lists the stdio fields', () => {
    const schema = JSON.stringify(configJsonSchema());
    for (const field of ['"stdio"', '"command"', '"legacyProbeTimeoutMs"', '"allowLegacy"', '"cwd"'])
      expect(schema).toContain(field);
  });
});
