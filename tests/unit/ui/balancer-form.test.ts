import { describe, expect, it } from 'vitest';
import { problemFromBody } from '@/lib/query/problem';
import { EMPTY_FORM, bodyFromForm, formFromBalancer, placeErrors } from '@/lib/query/balancer-form';
import type { Balancer } from '@/lib/query/types';

describe('bodyFromForm', () => {
  it('sends lists, numbers and headers, leaving empty optional numbers to the API defaults', () => {
    const body = bodyFromForm({
      ...EMPTY_FORM,
      name: 'edge',
      publicUrl: ' http://127.0.0.1:9/mcp ',
      nodeUrls: 'http://127.0.0.1:1/mcp\n\n  http://127.0.0.1:2/mcp  ',
      intervalMs: '10000',
      legacyVersions: '2025-11-25, 2025-06-18',
      regions: 'eu-west, us-east',
      headers: 'Authorization: env:TOKEN\nX-A: b:c',
      attributionHeader: 'x-served-by',
    });
    expect(body).toEqual({
      name: 'edge',
      publicUrl: 'http://127.0.0.1:9/mcp',
      nodeUrls: ['http://127.0.0.1:1/mcp', 'http://127.0.0.1:2/mcp'],
      nodeNames: {},
      resolveDns: false,
      allowLegacy: false,
      auditLegacy: false,
      catalog: true,
      intervalMs: 10000,
      legacyVersions: ['2025-11-25', '2025-06-18'],
      regions: ['eu-west', 'us-east'],
      headers: { Authorization: 'env:TOKEN', 'X-A': 'b:c' },
      attributionHeader: 'x-served-by',
      tlsCa: null,
      auth: null,
    });
  });

  it('sends a node line with a name after its URL as { url, name }, and shows stored names that way', () => {
    const body = bodyFromForm({
      ...EMPTY_FORM,
      nodeUrls: 'http://127.0.0.1:1/mcp   search-1 (eu)\nhttp://127.0.0.1:2/mcp',
    });
    expect(body.nodeUrls).toEqual([
      { url: 'http://127.0.0.1:1/mcp', name: 'search-1 (eu)' },
      'http://127.0.0.1:2/mcp',
    ]);
    // Names live on the lines: one taken off a line must not survive in the stored names.
    expect(body.nodeNames).toEqual({});
    const edited = formFromBalancer({
      ...({} as Balancer),
      nodeUrls: ['http://127.0.0.1:1/mcp', 'http://127.0.0.1:2/mcp'],
      nodeNames: { 'http://127.0.0.1:1/mcp': 'search-1 (eu)' },
      legacyVersions: [],
      headers: {},
      regions: null,
      auth: null,
    });
    expect(edited.nodeUrls).toBe('http://127.0.0.1:1/mcp search-1 (eu)\nhttp://127.0.0.1:2/mcp');
    // What the edit form shows is sent back as it was stored.
    expect(bodyFromForm({ ...EMPTY_FORM, nodeUrls: edited.nodeUrls }).nodeUrls).toEqual([
      { url: 'http://127.0.0.1:1/mcp', name: 'search-1 (eu)' },
      'http://127.0.0.1:2/mcp',
    ]);
    const placed = placeErrors(
      problemFromBody(
        422,
        { title: 'x', errors: [{ pointer: '/nodeUrls/0/name', detail: 'must be at most 80 characters' }] },
        'x',
      ),
    );
    expect(placed.fields.nodeUrls).toBe('line 1: must be at most 80 characters');
  });

  it('sends the CA bundle as typed (trimmed), and null for the system roots', () => {
    expect(bodyFromForm({ ...EMPTY_FORM, tlsCa: ' file:/etc/erawatch/ca.pem ' }).tlsCa).toBe(
      'file:/etc/erawatch/ca.pem',
    );
    expect(bodyFromForm({ ...EMPTY_FORM, tlsCa: '  ' }).tlsCa).toBeNull();
    const placed = placeErrors(
      problemFromBody(422, { title: 'x', errors: [{ pointer: '/tlsCa', detail: 'must be PEM' }] }, 'x'),
    );
    expect(placed.fields.tlsCa).toBe('must be PEM');
  });

  it('sends null regions when the field is empty: every region that has a worker probes it', () => {
    expect(bodyFromForm(EMPTY_FORM).regions).toBeNull();
    expect(bodyFromForm({ ...EMPTY_FORM, regions: ' , ' }).regions).toBeNull();
  });

  it('places an error on one region item under the Regions field', () => {
    const placed = placeErrors(
      problemFromBody(
        422,
        { title: 'x', errors: [{ pointer: '/regions/1', detail: "repeats regions[0] 'eu-west'" }] },
        'fallback',
      ),
    );
    expect(placed.fields.regions).toContain("item 2: repeats regions[0] 'eu-west'");
  });

  it('sends the catalog switch and its cadence', () => {
    const body = bodyFromForm({ ...EMPTY_FORM, catalog: false, catalogEvery: '3' });
    expect(body).toMatchObject({ catalog: false, catalogEvery: 3 });
    expect(bodyFromForm(EMPTY_FORM)).not.toHaveProperty('catalogEvery');
  });

  it('sends OAuth client credentials only when switched on, leaving empty optional URLs out', () => {
    const on = {
      ...EMPTY_FORM,
      authClientId: ' erawatch ',
      authClientSecret: 'env:MCP_SECRET',
      authScope: 'mcp:read',
    };
    expect(bodyFromForm(on).auth).toBeNull();
    expect(bodyFromForm({ ...on, authEnabled: true }).auth).toEqual({
      type: 'oauth-client-credentials',
      clientId: 'erawatch',
      clientSecret: 'env:MCP_SECRET',
      scope: 'mcp:read',
    });
    expect(
      bodyFromForm({
        ...on,
        authEnabled: true,
        authTokenUrl: 'https://as/token',
        authResource: 'https://r/mcp',
      }).auth,
    ).toMatchObject({ tokenUrl: 'https://as/token', resource: 'https://r/mcp' });
  });

  it('passes text that is not a number through, so the API can name the field', () => {
    expect(bodyFromForm({ ...EMPTY_FORM, timeoutMs: 'soon' }).timeoutMs).toBe('soon');
  });
});

describe('placeErrors', () => {
  const problem = (status: number, body: unknown) => problemFromBody(status, body, 'fallback');

  it.each([
    [
      problem(422, {
        title: 'Unprocessable Content',
        errors: [{ pointer: '/publicUrl', detail: 'must be an http:// or https:// URL' }],
      }),
      { publicUrl: 'must be an http:// or https:// URL' },
      [],
    ],
    [
      problem(422, {
        title: 'x',
        errors: [
          { pointer: '/nodeUrls/1', detail: 'bad url' },
          { pointer: '/name', detail: 'is required' },
        ],
      }),
      { nodeUrls: 'line 2: bad url', name: 'is required' },
      [],
    ],
    [
      problem(422, { title: 'x', errors: [{ pointer: '/headers/X~1Y', detail: 'bad' }] }),
      { headers: 'X/Y: bad' },
      [],
    ],
    [
      problem(422, {
        title: 'x',
        errors: [
          { pointer: '/auth/clientSecret', detail: 'is required' },
          { pointer: '/auth/type', detail: "must be 'oauth-client-credentials'" },
        ],
      }),
      { authClientSecret: 'is required', authEnabled: "must be 'oauth-client-credentials'" },
      [],
    ],
    [
      problem(409, { title: 'Conflict', detail: "a balancer named 'edge' already exists" }),
      { name: "a balancer named 'edge' already exists" },
      [],
    ],
    [
      problem(422, { title: 'x', errors: [{ pointer: '/', detail: 'must be an object' }] }),
      {},
      ['must be an object'],
    ],
    [problem(401, { title: 'Unauthorized', detail: 'needs a token' }), {}, ['needs a token']],
  ])('places %o', (p, fields, general) => {
    const placed = placeErrors(p);
    expect(placed.fields).toEqual(fields);
    expect(placed.general).toEqual(general);
  });
});
