// Node names through the config file, on the store of the run's engine: `{ url, name }` items are applied,
// exported back as written and re-applied unchanged; a bad name is refused with file, line and field, changing
// nothing; a real poll cycle names the node; the published JSON Schema and the OpenAPI document describe it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { openStore, type Store } from '@/db/index';
import { getBalancerByName } from '@/db/queries/balancers';
import { listNodes } from '@/db/queries/nodes';
import { buildOpenApiDocument } from '@/lib/api/openapi';
import { applyConfig } from '@/lib/config/apply';
import { exportConfig } from '@/lib/config/export';
import { ConfigError, parseConfig } from '@/lib/config/load';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { closeDefaultProbe } from '@/lib/poller/default-probe';
import { configJsonSchema } from '@/lib/schemas/config';
import { parseSettings, processSettings } from '@/lib/settings';
import { runOneCycle } from '../../support/cycle';
import { storeLocation } from '../../support/store';
import { testSettings } from '../../support/settings';

let dir = '';
let store: Store;
let peer: RunningPeer;

const settings = parseSettings({ ERAWATCH_ALLOW_LOOPBACK: '1' });

const fileFor = (nodeUrl: string, name: string) => `version: 1
balancers:
  - name: named-from-file
    publicUrl: ${nodeUrl}
    samplesPerCycle: 0
    nodeUrls:
      - url: ${nodeUrl}
        name: ${JSON.stringify(name)}
      - http://127.0.0.1:9/mcp
`;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-names-config-'));
  store = await openStore(await storeLocation(dir, 'names.db'), { settings: processSettings() });
  peer = await startPeer('v2-modern', { name: 'search-api', version: '2.0.0' });
}, 120_000);

afterAll(async () => {
  await closeDefaultProbe();
  await peer?.stop();
  await store?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('node names in the config file', () => {
  it('applies { url, name }, names the node in a cycle, exports it as written and re-applies unchanged', async () => {
    const summary = await applyConfig(store, parseConfig(fileFor(peer.url, 'search-1'), 'f.yaml', settings));
    expect(summary.created).toEqual(["balancer 'named-from-file'"]);
    const b = await getBalancerByName(store, 'named-from-file');
    expect(b.nodeUrls).toEqual([peer.url, 'http://127.0.0.1:9/mcp']);
    expect(b.nodeNames).toEqual({ [peer.url]: 'search-1' });

    await runOneCycle(store, b.id, { settings: testSettings() });
    const nodes = await listNodes(store, b.id);
    expect(nodes.find((n) => n.url === peer.url)?.name).toBe('search-1');

    const { yaml } = await exportConfig(store, { includeSecrets: true });
    const exported = (parse(yaml) as { balancers: Array<Record<string, unknown>> }).balancers[0];
    expect(exported?.nodeUrls).toEqual([{ url: peer.url, name: 'search-1' }, 'http://127.0.0.1:9/mcp']);
    expect(exported).not.toHaveProperty('nodeNames');
    const again = await applyConfig(store, parseConfig(yaml, 'export.yaml', settings));
    expect(again.unchanged).toEqual(["balancer 'named-from-file'"]);

    // A renamed node in the file is an update.
    const renamed = await applyConfig(
      store,
      parseConfig(fileFor(peer.url, 'search-one'), 'f.yaml', settings),
    );
    expect(renamed.updated).toEqual(["balancer 'named-from-file'"]);
    expect((await getBalancerByName(store, 'named-from-file')).nodeNames).toEqual({
      [peer.url]: 'search-one',
    });
  }, 120_000);

  it.each([
    ['an empty name', '  ', 'must not be empty'],
    ['a name over 80 characters', 'n'.repeat(81), 'must be at most 80 characters'],
    ['a control character', 'search\u001b[31m', 'must not contain control characters'],
  ])('refuses %s with file, line and field, changing nothing', async (_what, name, words) => {
    const before = JSON.stringify(await getBalancerByName(store, 'named-from-file'));
    let error: unknown;
    try {
      await applyConfig(store, parseConfig(fileFor(peer.url, name), 'bad.yaml', settings));
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const issue = (error as ConfigError).issues[0];
    expect(issue?.field).toBe('balancers.0.nodeUrls.0.name');
    expect(issue?.line).toBe(8);
    expect(issue?.message).toContain(words);
    expect(JSON.stringify(await getBalancerByName(store, 'named-from-file'))).toBe(before);
  });

  it('the JSON Schema and the OpenAPI document describe { url, name } items and nodeNames', () => {
    const schema = JSON.stringify(configJsonSchema());
    expect(schema).toContain('"nodeNames"');
    const config = configJsonSchema() as {
      properties: { balancers: { items: { properties: { nodeUrls: { items: { anyOf: Array<Json> } } } } } };
    };
    const item = config.properties.balancers.items.properties.nodeUrls.items.anyOf;
    expect(item.map((s) => s.type)).toEqual(['string', 'object']);
    expect(item[1]).toMatchObject({ required: ['url', 'name'], properties: { name: { maxLength: 80 } } });

    const doc = JSON.stringify(buildOpenApiDocument('test'));
    expect(doc).toContain('"nodeNames"');
    expect(doc).toContain('"nodeName"');
    const components = (buildOpenApiDocument('test') as { components: { schemas: Record<string, Json> } })
      .components.schemas;
    expect(components.Node).toMatchObject({
      properties: { name: { type: ['string', 'null'] } },
    });
  });
});

type Json = Record<string, unknown>;
