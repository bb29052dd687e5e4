// What registration refuses, through the real route handlers and the config file, against a real SQLite file:
// probe targets the egress guard would refuse, credentials in URLs, unknown body keys. Nothing is stored.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '@/db/index';
import { listBalancers } from '@/db/queries/balancers';
import { createBalancer } from '@/lib/balancers';
import { applyConfigAtStartup } from '@/lib/config/startup';
import { parseSettings, resetProcessSettings, processSettings } from '@/lib/settings';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-registration-'));
process.env.ERAWATCH_DB = path.join(dir, 'api.db');
process.env.ERAWATCH_ADMIN_SECRET = 'registration-admin-secret-0123456789';
process.env.ERAWATCH_BIND = '127.0.0.1';
process.env.ERAWATCH_RATE_LIMIT = '0';
process.env.ERAWATCH_AUTH_FAILURE_LIMIT = '0';
delete process.env.ERAWATCH_ALLOW_LOOPBACK;

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;
const ADMIN = process.env.ERAWATCH_ADMIN_SECRET;

interface Problem {
  type: string;
  status: number;
  detail: string;
  errors?: Array<{ pointer: string; detail: string }>;
}

async function send(handler: Handler, method: string, url: string, body: unknown, id?: string) {
  const res = await handler(
    new Request(`http://127.0.0.1:3999${url}`, {
      method,
      headers: {
        host: '127.0.0.1:3999',
        authorization: `Bearer ${ADMIN}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    }),
    { params: Promise.resolve<Record<string, string>>(id ? { id } : {}) },
  );
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

let POST: Handler;
let PATCH: Handler;
let store: Store;
let existingId = '';
const stored = async () => JSON.stringify((await listBalancers(store, { limit: 500 })).items);

beforeAll(async () => {
  POST = (await import('@/app/api/v1/balancers/route')).POST as Handler;
  PATCH = (await import('@/app/api/v1/balancers/[id]/route')).PATCH as Handler;
  const { getStore } = await import('@/db/index');
  store = await getStore({ settings: processSettings() });
  existingId = (
    await createBalancer(store, {
      name: 'reg-existing',
      publicUrl: 'https://10.1.0.1/mcp',
    })
  ).id;
});

afterAll(async () => {
  const { getStore } = await import('@/db/index');
  await (await getStore({ settings: processSettings() })).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const METADATA_FORMS: Array<[string, string, RegExp]> = [
  ['AWS metadata', 'http://169.254.169.254/latest/meta-data', /metadata/],
  ['IPv4-mapped IPv6', 'http://[::ffff:a9fe:a9fe]/mcp', /metadata/],
  ['IPv4-mapped IPv6, dotted', 'http://[::ffff:169.254.169.254]/mcp', /metadata/],
  ['hex loopback', 'http://0x7f000001/mcp', /loopback/],
  ['decimal metadata', 'http://2852039166/mcp', /metadata/],
  ['octal metadata', 'http://0251.0376.0251.0376/mcp', /metadata/],
  ['0.0.0.0', 'http://0.0.0.0:8080/mcp', /not a unicast/],
  ['[::]', 'http://[::]:8080/mcp', /not a unicast/],
  ['IPv6 link-local', 'http://[fe80::1]/mcp', /link-local/],
  ['IPv4 link-local', 'http://169.254.10.1/mcp', /link-local/],
  ['Alibaba metadata', 'http://100.100.100.200/latest', /metadata/],
  ['AWS IPv6 metadata', 'http://[fd00:ec2::254]/latest', /metadata/],
  ['GCP metadata name', 'http://metadata.google.internal/computeMetadata/v1', /metadata host/],
  ['GCP metadata name, trailing dot', 'http://Metadata.Google.Internal./v1', /metadata host/],
  ['loopback without ERAWATCH_ALLOW_LOOPBACK', 'http://127.0.0.1:4101/mcp', /loopback/],
  ['localhost without ERAWATCH_ALLOW_LOOPBACK', 'http://localhost:4101/mcp', /loopback/],
];

type Case = {
  name: string;
  method: 'POST' | 'PATCH';
  body: Record<string, unknown>;
  status: number;
  code: string;
  errors: Array<{ pointer: string; detail: RegExp }>;
};

const cases: Case[] = [
  ...METADATA_FORMS.flatMap(([label, url, detail]): Case[] => [
    {
      name: `POST publicUrl: ${label}`,
      method: 'POST',
      body: { name: 'reg-bad', publicUrl: url },
      status: 422,
      code: 'egress_refused',
      errors: [{ pointer: '/publicUrl', detail }],
    },
    {
      name: `POST nodeUrls: ${label}`,
      method: 'POST',
      body: { name: 'reg-bad', publicUrl: 'https://10.1.0.9/mcp', nodeUrls: ['https://10.1.0.2/mcp', url] },
      status: 422,
      code: 'egress_refused',
      errors: [{ pointer: '/nodeUrls/1', detail }],
    },
    {
      name: `PATCH publicUrl: ${label}`,
      method: 'PATCH',
      body: { publicUrl: url },
      status: 422,
      code: 'egress_refused',
      errors: [{ pointer: '/publicUrl', detail }],
    },
    {
      name: `PATCH nodeUrls: ${label}`,
      method: 'PATCH',
      body: { nodeUrls: [url] },
      status: 422,
      code: 'egress_refused',
      errors: [{ pointer: '/nodeUrls/0', detail }],
    },
  ]),
  {
    name: 'POST with a password in publicUrl',
    method: 'POST',
    body: { name: 'reg-bad', publicUrl: 'http://admin:s3cr3tpw@10.1.0.1:4101/mcp' },
    status: 422,
    code: 'validation_failed',
    errors: [{ pointer: '/publicUrl', detail: /user name or password.*`headers`.*env:NAME/ }],
  },
  {
    name: 'POST with a user name in a node URL',
    method: 'POST',
    body: { name: 'reg-bad', publicUrl: 'https://10.1.0.9/mcp', nodeUrls: ['https://deploy@10.1.0.2/mcp'] },
    status: 422,
    code: 'validation_failed',
    errors: [{ pointer: '/nodeUrls/0', detail: /user name or password.*`headers`/ }],
  },
  {
    name: 'PATCH with a password in publicUrl',
    method: 'PATCH',
    body: { publicUrl: 'http://admin:s3cr3tpw@10.1.0.1:4101/mcp' },
    status: 422,
    code: 'validation_failed',
    errors: [{ pointer: '/publicUrl', detail: /user name or password/ }],
  },
  {
    name: 'POST with two unknown keys',
    method: 'POST',
    body: { name: 'reg-bad', publicUrl: 'https://10.1.0.9/mcp', bogus: 1, 'we/ird': 2 },
    status: 422,
    code: 'validation_failed',
    errors: [
      { pointer: '/bogus', detail: /unknown field 'bogus'/ },
      { pointer: '/we~1ird', detail: /unknown field 'we\/ird'/ },
    ],
  },
  ...(
    [
      ['a capital letter', ['EU-West'], '/regions/0', /lowercase letters, digits and -, 1 to 63 characters/],
      ['an empty name', [''], '/regions/0', /must not be empty/],
      ['a 64-character name', ['r'.repeat(64)], '/regions/0', /at most 63 characters \(got 64\)/],
      ['a region twice', ['eu-west', 'us-east', 'eu-west'], '/regions/2', /repeats regions\[0\] 'eu-west'/],
      ['a number in the list', ['eu-west', 7], '/regions/1', /must be a region name/],
      ['a string instead of a list', 'eu-west', '/regions', /must be a list of region names, or null/],
      [
        'an empty list',
        [],
        '/regions',
        /must name at least one region; null .* every region that has a worker/,
      ],
      ['51 regions', Array.from({ length: 51 }, (_, i) => `r${i}`), '/regions', /at most 50 regions/],
    ] as const
  ).flatMap(([label, regions, pointer, detail]): Case[] => [
    {
      name: `POST regions: ${label}`,
      method: 'POST',
      body: { name: 'reg-bad', publicUrl: 'https://10.1.0.9/mcp', regions },
      status: 422,
      code: 'validation_failed',
      errors: [{ pointer, detail }],
    },
    {
      name: `PATCH regions: ${label}`,
      method: 'PATCH',
      body: { regions },
      status: 422,
      code: 'validation_failed',
      errors: [{ pointer, detail }],
    },
  ]),
  {
    name: 'PATCH with an unknown key',
    method: 'PATCH',
    body: { bogus: true },
    status: 422,
    code: 'validation_failed',
    errors: [{ pointer: '/bogus', detail: /unknown field 'bogus'/ }],
  },
];

describe('registration refuses', () => {
  it.each(cases)('$name', async (c) => {
    const before = await stored();
    const res =
      c.method === 'POST'
        ? await send(POST, 'POST', '/api/v1/balancers', c.body)
        : await send(PATCH, 'PATCH', `/api/v1/balancers/${existingId}`, c.body, existingId);
    expect(res.status).toBe(c.status);
    expect(res.type).toBe('application/problem+json');
    const problem = JSON.parse(res.text) as Problem;
    expect(problem.type).toBe(`https://erawatch.dev/problems/${c.code}`);
    expect(problem.status).toBe(c.status);
    expect(problem.errors?.map((e) => e.pointer)).toEqual(c.errors.map((e) => e.pointer));
    c.errors.forEach((e, i) => expect(problem.errors?.[i]?.detail).toMatch(e.detail));
    expect(res.text).not.toContain('s3cr3tpw');
    expect(await stored()).toBe(before);
  });

  it('private ranges stay allowed for probe targets', async () => {
    const res = await send(POST, 'POST', '/api/v1/balancers', {
      name: 'reg-private',
      publicUrl: 'http://10.20.0.1:8080/mcp',
      nodeUrls: ['http://192.168.1.5/mcp', 'http://172.16.0.9/mcp', 'http://[fd12::5]/mcp'],
    });
    expect(res.status).toBe(201);
  });

  it('a balancer keeps the regions it lists, PATCH changes them, and null gives every region back', async () => {
    const res = await send(POST, 'POST', '/api/v1/balancers', {
      name: 'reg-regions',
      publicUrl: 'http://10.20.0.2:8080/mcp',
      regions: ['eu-west', 'us-east'],
    });
    expect(res.status).toBe(201);
    const created = JSON.parse(res.text) as { id: string; regions: string[] | null };
    expect(created.regions).toEqual(['eu-west', 'us-east']);
    const patch = (regions: unknown) =>
      send(PATCH, 'PATCH', `/api/v1/balancers/${created.id}`, { regions }, created.id);
    const one = await patch(['us-east']);
    expect(one.status).toBe(200);
    expect((JSON.parse(one.text) as { regions: string[] | null }).regions).toEqual(['us-east']);
    const all = await patch(null);
    expect(all.status).toBe(200);
    expect((JSON.parse(all.text) as { regions: string[] | null }).regions).toBeNull();
    const plain = await send(POST, 'POST', '/api/v1/balancers', {
      name: 'reg-no-regions',
      publicUrl: 'http://10.20.0.3:8080/mcp',
    });
    expect((JSON.parse(plain.text) as { regions: string[] | null }).regions).toBeNull();
  });

  it('loopback is allowed when ERAWATCH_ALLOW_LOOPBACK=1', async () => {
    process.env.ERAWATCH_ALLOW_LOOPBACK = '1';
    // The routes read the process's settings once: read them again with the variable set.
    resetProcessSettings();
    try {
      const res = await send(POST, 'POST', '/api/v1/balancers', {
        name: 'reg-loopback',
        publicUrl: 'http://127.0.0.1:4101/mcp',
        nodeUrls: ['http://0x7f000001:4102/mcp'],
      });
      expect(res.status).toBe(201);
      // Even with loopback allowed, metadata stays refused.
      const refused = await send(POST, 'POST', '/api/v1/balancers', {
        name: 'reg-metadata',
        publicUrl: 'http://169.254.169.254/latest',
      });
      expect(refused.status).toBe(422);
    } finally {
      delete process.env.ERAWATCH_ALLOW_LOOPBACK;
      resetProcessSettings();
    }
  });
});

describe('the config file refuses the same', () => {
  let cfgStore: Store;
  beforeAll(async () => {
    cfgStore = await openStore(path.join(dir, 'config.db'), { settings: processSettings() });
  });
  afterAll(() => cfgStore.close());

  const configCases: Array<{ name: string; entry: string; field: string; message: RegExp }> = [
    ...METADATA_FORMS.map(([label, url, message]) => ({
      name: `nodeUrls: ${label}`,
      entry: `    publicUrl: https://10.1.0.9/mcp\n    nodeUrls:\n      - https://10.1.0.2/mcp\n      - "${url}"\n`,
      field: 'balancers.0.nodeUrls.1',
      message,
    })),
    {
      name: 'publicUrl: metadata address',
      entry: `    publicUrl: http://169.254.169.254/latest\n`,
      field: 'balancers.0.publicUrl',
      message: /metadata/,
    },
    {
      name: 'publicUrl with a password',
      entry: `    publicUrl: http://admin:s3cr3tpw@10.1.0.1/mcp\n`,
      field: 'balancers.0.publicUrl',
      message: /user name or password.*`headers`.*env:NAME/,
    },
    {
      name: 'a region that is not a region name',
      entry: `    publicUrl: https://10.1.0.9/mcp\n    regions: [eu-west, "US East"]\n`,
      field: 'balancers.0.regions.1',
      message: /lowercase letters, digits and -/,
    },
    {
      name: 'a region listed twice',
      entry: `    publicUrl: https://10.1.0.9/mcp\n    regions: [eu-west, eu-west]\n`,
      field: 'balancers.0.regions.1',
      message: /repeats regions\[0\] 'eu-west'/,
    },
    {
      name: 'an empty regions list',
      entry: `    publicUrl: https://10.1.0.9/mcp\n    regions: []\n`,
      field: 'balancers.0.regions',
      message: /must name at least one region/,
    },
    {
      name: 'an unknown key',
      entry: `    publicUrl: https://10.1.0.9/mcp\n    bogus: 1\n`,
      field: 'balancers.0.bogus',
      message: /unknown field 'bogus'/,
    },
  ];

  it.each(configCases)('$name', async (c) => {
    const file = path.join(dir, 'erawatch.config.yaml');
    fs.writeFileSync(file, `version: 1\nbalancers:\n  - name: cfg-bad\n${c.entry}`);
    const logs: string[] = [];
    const summary = await applyConfigAtStartup(cfgStore, parseSettings({ ERAWATCH_CONFIG: file }), (l) =>
      logs.push(l),
    );
    expect(summary).toBeNull();
    expect((await listBalancers(cfgStore)).items).toEqual([]);
    const text = logs.join('\n');
    expect(text).toMatch(new RegExp(`erawatch.config.yaml:\\d+: ${c.field.replace(/\./g, '\\.')}: `));
    expect(text).toMatch(c.message);
    expect(text).not.toContain('s3cr3tpw');
  });
});
