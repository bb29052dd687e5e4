// The gate and the Flagger hooks as Argo Rollouts and Flagger call them (their exact request shapes), against
// real MCP SDK servers on loopback and a real SQLite file: what each answer is, and what each tool then does.
import { processSettings } from '@/lib/settings';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { startFaultPeer, type FaultPeer } from '@/tests/support/fault-peer';
import {
  argoMeasure,
  argoRequest,
  flaggerPassed,
  flaggerRequest,
  type ArgoPhase,
  type FlaggerMetadata,
} from '@/tests/support/rollout-tools';
import { storeLocation } from '../../support/store';
import { startLocalPoller, type LocalPoller } from '../../support/local-poller';

const docs = path.resolve(import.meta.dirname, '../../../docs');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-gate-tools-'));
process.env.ERAWATCH_DB = await storeLocation(dir, 'gate.db');
process.env.ERAWATCH_ADMIN_SECRET = 'gate-admin-secret-0123456789abcdef';
process.env.ERAWATCH_BIND = '127.0.0.1';
process.env.ERAWATCH_ALLOW_LOOPBACK = '1';
process.env.ERAWATCH_RATE_LIMIT = '0';
process.env.ERAWATCH_AUTH_FAILURE_LIMIT = '0';
// The fresh gate waits for a cycle of this process's poller: room for a loaded machine.
process.env.ERAWATCH_GATE_FRESH_WAIT_MS = '30000';

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;
const ADMIN = process.env.ERAWATCH_ADMIN_SECRET;
const REVISION = '2026-07-28';
const peers: RunningPeer[] = [];
const faults: FaultPeer[] = [];
let gate: Handler;
let hook: Handler;
let rollbackHook: Handler;
let readToken = '';
const ids: Record<string, string> = {};

async function handler(mod: Promise<unknown>, method: string): Promise<Handler> {
  const h = ((await mod) as Record<string, Handler | undefined>)[method];
  if (!h) throw new Error(`no ${method}`);
  return h;
}

function adminRequest(url: string, body?: unknown): Request {
  const headers: Record<string, string> = { host: '127.0.0.1:3999', authorization: `Bearer ${ADMIN}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return new Request(`http://127.0.0.1:3999${url}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function peer(kind: Parameters<typeof startPeer>[0], port?: number): Promise<RunningPeer> {
  const p = await startPeer(kind, { name: 'gate-node', version: '2.4.0', ...(port ? { port } : {}) });
  peers.push(p);
  return p;
}

async function createBalancer(name: string, nodeUrls: string[], extra: Record<string, unknown> = {}) {
  const create = await handler(import('@/app/api/v1/balancers/route'), 'POST');
  const res = await create(
    adminRequest('/api/v1/balancers', {
      name,
      publicUrl: nodeUrls[0],
      nodeUrls,
      samplesPerCycle: 0,
      ...extra,
    }),
  );
  expect(res.status).toBe(201);
  ids[name] = ((await res.json()) as { id: string }).id;
  return ids[name];
}

async function probe(id: string): Promise<void> {
  const run = await handler(import('@/app/api/v1/balancers/[id]/probe/route'), 'POST');
  const res = await run(adminRequest(`/api/v1/balancers/${id}/probe`, {}), {
    params: Promise.resolve({ id }),
  });
  expect(res.status).toBe(200);
}

function askGate(ref: string, token: string | null, query = `revision=${REVISION}`): Promise<Response> {
  return gate(argoRequest(`/api/v1/balancers/${encodeURIComponent(ref)}/gate?${query}`, token), {
    params: Promise.resolve({ id: ref }),
  });
}

/** A bounded wait on an observable fact (a peer's request log), never a sleep. */
async function waitUntil(what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function metadata(balancer: string, token: string | null, extra: FlaggerMetadata = {}): FlaggerMetadata {
  return { balancer, revision: REVISION, ...(token === null ? {} : { token }), ...extra };
}

let poller: LocalPoller | null = null;

beforeAll(async () => {
  // The fresh gate asks this process's poll role for its cycles, as `next start` runs one.
  poller = await startLocalPoller();
  gate = await handler(import('@/app/api/v1/balancers/[id]/gate/route'), 'GET');
  hook = await handler(import('@/app/api/v1/hooks/flagger/route'), 'POST');
  rollbackHook = await handler(import('@/app/api/v1/hooks/flagger/rollback/route'), 'POST');
  const tokens = await handler(import('@/app/api/v1/tokens/route'), 'POST');
  const made = await tokens(adminRequest('/api/v1/tokens', { name: 'argo-and-flagger', scope: 'read' }));
  expect(made.status).toBe(201);
  readToken = ((await made.json()) as { token: string }).token;

  const [a, b, c, d, e] = await Promise.all([
    peer('v2-modern'),
    peer('v2-modern'),
    peer('v2-modern'),
    peer('v1-stateful'),
    peer('v2-modern'),
  ]);
  const gated = await startFaultPeer((_req, res) => {
    res.writeHead(401, { 'www-authenticate': 'Bearer resource_metadata="http://127.0.0.1/.well-known/x"' });
    res.end();
  });
  faults.push(gated);
  if (!a || !b || !c || !d || !e) throw new Error('peers did not start');
  await createBalancer('gate-open', [a.url, b.url]);
  await createBalancer('gate-closed', [c.url, d.url], { allowLegacy: true });
  await createBalancer('gate-auth', [e.url, gated.url]);
  await Promise.all(['gate-open', 'gate-closed', 'gate-auth'].map((n) => probe(ids[n] ?? '')));
});

afterAll(async () => {
  await poller?.stop();
  await Promise.all([...peers.map((p) => p.stop()), ...faults.map((f) => f.close())]);
  const { closeDefaultProbe } = await import('@/lib/poller/default-probe');
  await closeDefaultProbe();
  const { getStore } = await import('@/db/index');
  await (await getStore({ settings: processSettings() })).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface ToolCase {
  name: string;
  balancer: string;
  token: 'read' | 'none' | 'unknown';
  /** Argo with `jsonPath: "{$.ready}"`, `successCondition: result == true`. */
  argoReady: ArgoPhase;
  /** Argo with `jsonPath: "{$.state}"`, success `== "open"`, failure `== "closed"`. */
  argoState: ArgoPhase;
  status: number;
  state?: string;
  problem?: string;
  hook: { status: number; problem?: string; flagger: string };
  rollback: { status: number; problem?: string; flagger: string };
}

const CASES: ToolCase[] = [
  {
    name: 'open: every node serves 2026-07-28 alike',
    balancer: 'gate-open',
    token: 'read',
    argoReady: 'Successful',
    argoState: 'Successful',
    status: 200,
    state: 'open',
    hook: { status: 200, flagger: 'promotes' },
    rollback: { status: 409, problem: 'gate_open', flagger: 'carries on' },
  },
  {
    name: 'closed: one node modern, one legacy',
    balancer: 'gate-closed',
    token: 'read',
    argoReady: 'Failed',
    argoState: 'Failed',
    status: 200,
    state: 'closed',
    hook: { status: 409, problem: 'gate_closed', flagger: 'holds' },
    rollback: { status: 200, flagger: 'rolls back' },
  },
  {
    name: 'cannot judge: one node is auth-gated',
    balancer: 'gate-auth',
    token: 'read',
    argoReady: 'Failed',
    argoState: 'Inconclusive',
    status: 200,
    state: 'cannot_judge',
    hook: { status: 409, problem: 'gate_closed', flagger: 'holds' },
    rollback: { status: 200, flagger: 'rolls back' },
  },
  {
    name: 'unknown balancer',
    balancer: 'no-such-balancer',
    token: 'read',
    argoReady: 'Error',
    argoState: 'Error',
    status: 404,
    problem: 'not_found',
    hook: { status: 404, problem: 'not_found', flagger: 'holds' },
    rollback: { status: 404, problem: 'not_found', flagger: 'carries on' },
  },
  {
    name: 'no token',
    balancer: 'gate-open',
    token: 'none',
    argoReady: 'Error',
    argoState: 'Error',
    status: 401,
    problem: 'credentials_required',
    hook: { status: 401, problem: 'credentials_required', flagger: 'holds' },
    rollback: { status: 401, problem: 'credentials_required', flagger: 'carries on' },
  },
  {
    name: 'an unknown token',
    balancer: 'gate-open',
    token: 'unknown',
    argoReady: 'Error',
    argoState: 'Error',
    status: 401,
    problem: 'invalid_token',
    hook: { status: 401, problem: 'invalid_token', flagger: 'holds' },
    rollback: { status: 401, problem: 'invalid_token', flagger: 'carries on' },
  },
];

const UNKNOWN_TOKEN = 'ewt_read_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
function tokenFor(c: ToolCase): string | null {
  return c.token === 'read' ? readToken : c.token === 'unknown' ? UNKNOWN_TOKEN : null;
}

describe('Argo Rollouts web provider against the gate', () => {
  it.each(CASES)('$name', async (c) => {
    const token = tokenFor(c);
    const res = await askGate(c.balancer, token);
    expect(res.status).toBe(c.status);
    const text = await res.clone().text();
    if (token) expect(text).not.toContain(token);
    const ready = await argoMeasure(res.clone(), 'ready', (v) => v === true);
    expect(ready.phase).toBe(c.argoReady);
    const state = await argoMeasure(
      res.clone(),
      'state',
      (v) => v === 'open',
      (v) => v === 'closed',
    );
    expect(state.phase).toBe(c.argoState);
    const body = JSON.parse(text) as Record<string, unknown>;
    if (c.problem) {
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(body).toMatchObject({ status: c.status, type: `https://erawatch.dev/problems/${c.problem}` });
      return;
    }
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(body).toMatchObject({
      balancerId: ids[c.balancer],
      balancerName: c.balancer,
      revision: REVISION,
      ready: c.state === 'open',
      state: c.state,
      fresh: false,
    });
    expect(typeof body.observedAt).toBe('number');
    expect(Number(body.observedAt)).toBeLessThanOrEqual(Number(body.checkedAt));
    if (c.state !== 'open') expect((body.reasons as string[]).length).toBeGreaterThan(0);
  });

  it('takes the id as well as the name, with the same answer', async () => {
    const byName = (await (await askGate('gate-closed', readToken)).json()) as Record<string, unknown>;
    const byId = (await (await askGate(ids['gate-closed'] ?? '', readToken)).json()) as Record<
      string,
      unknown
    >;
    expect({ ...byId, checkedAt: 0 }).toEqual({ ...byName, checkedAt: 0 });
    expect(byName.reasons).toEqual([
      expect.stringMatching(/^nodes present 2 different served sets: /),
      expect.stringMatching(/^2026-07-28 is not served by /),
    ]);
  });

  it.each([
    { query: 'revision=latest', pointer: '/revision' },
    { query: `revision=${REVISION}&fresh=yes`, pointer: '/fresh' },
    { query: '', pointer: '/revision' },
  ])('a bad query ($query) is 400 naming the parameter (Argo: Error)', async ({ query, pointer }) => {
    const res = await askGate('gate-open', readToken, query);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { type: string; errors: Array<{ pointer: string; in: string }> };
    expect(body.type).toBe('https://erawatch.dev/problems/invalid_query');
    expect(body.errors).toEqual([expect.objectContaining({ pointer, in: 'query' })]);
  });
});

describe('Flagger webhooks against the gate', () => {
  it.each(CASES)('$name', async (c) => {
    const token = tokenFor(c);
    for (const [kind, call, expected] of [
      ['gate', hook, c.hook],
      ['rollback', rollbackHook, c.rollback],
    ] as const) {
      const res = await call(
        flaggerRequest(
          `/api/v1/hooks/flagger${kind === 'rollback' ? '/rollback' : ''}`,
          metadata(c.balancer, token),
        ),
      );
      expect(res.status, kind).toBe(expected.status);
      const text = await res.text();
      if (token) expect(text).not.toContain(token);
      const body = JSON.parse(text) as Record<string, unknown>;
      const passed = flaggerPassed(res.status);
      const flagger =
        kind === 'gate' ? (passed ? 'promotes' : 'holds') : passed ? 'rolls back' : 'carries on';
      expect(flagger, kind).toBe(expected.flagger);
      if (expected.problem) {
        expect(res.headers.get('content-type')).toBe('application/problem+json');
        expect(body).toMatchObject({
          status: expected.status,
          type: `https://erawatch.dev/problems/${expected.problem}`,
        });
      } else {
        expect(res.headers.get('content-type')).toBe('application/json');
        expect(body).toMatchObject({ action: kind === 'gate' ? 'promote' : 'rollback' });
      }
      if (c.state) {
        expect(body).toMatchObject({
          canary: { name: 'podinfo', namespace: 'test', phase: 'Progressing', checksum: '6d5c9b8f7' },
          gate: { balancerName: c.balancer, state: c.state, ready: c.state === 'open' },
        });
      }
    }
  });

  it.each<{
    name: string;
    body: Record<string, unknown> | null;
    status: number;
    problem: string;
    pointer?: string;
  }>([
    { name: 'no metadata', body: null, status: 422, problem: 'validation_failed', pointer: '/metadata' },
    {
      name: 'no balancer in metadata',
      body: { revision: REVISION },
      status: 422,
      problem: 'validation_failed',
      pointer: '/metadata/balancer',
    },
    {
      name: 'a revision that is not a date',
      body: { balancer: 'gate-open', revision: 'next' },
      status: 422,
      problem: 'validation_failed',
      pointer: '/metadata/revision',
    },
    {
      name: 'fresh that is not true or false',
      body: { balancer: 'gate-open', revision: REVISION, fresh: 'soon' },
      status: 422,
      problem: 'validation_failed',
      pointer: '/metadata/fresh',
    },
  ])(
    '$name is $status with a pointer (Flagger: holds, or carries on)',
    async ({ body, status, problem, pointer }) => {
      for (const call of [hook, rollbackHook]) {
        const req = flaggerRequest(
          '/api/v1/hooks/flagger',
          body === null ? null : { ...body, token: readToken },
        );
        const res = await call(req);
        expect(res.status).toBe(status);
        const text = await res.text();
        expect(text).not.toContain(readToken);
        const problemBody = JSON.parse(text) as { type: string; errors?: Array<{ pointer: string }> };
        expect(problemBody.type).toBe(`https://erawatch.dev/problems/${problem}`);
        expect(problemBody.errors?.map((e) => e.pointer)).toContain(pointer);
      }
    },
  );

  it('a body that is not JSON is 415 or 400, never a pass', async () => {
    const notJson = new Request('http://127.0.0.1:3999/api/v1/hooks/flagger', {
      method: 'POST',
      headers: { host: '127.0.0.1:3999', 'content-type': 'text/plain' },
      body: 'name=podinfo',
    });
    expect((await hook(notJson)).status).toBe(415);
    const broken = new Request('http://127.0.0.1:3999/api/v1/hooks/flagger', {
      method: 'POST',
      headers: { host: '127.0.0.1:3999', 'content-type': 'application/json' },
      body: '{"name":',
    });
    expect((await hook(broken)).status).toBe(400);
  });

  it('never logs the token in metadata.token, whatever the answer', async () => {
    const seen: string[] = [];
    const originals = { log: console.log, info: console.info, warn: console.warn, error: console.error };
    const capture =
      (..._args: unknown[]) =>
      (...args: unknown[]) => {
        seen.push(
          args.map((a) => (a instanceof Error ? `${a.message} ${a.stack ?? ''}` : String(a))).join(' '),
        );
      };
    console.log = capture();
    console.info = capture();
    console.warn = capture();
    console.error = capture();
    try {
      for (const balancer of ['gate-open', 'gate-closed', 'no-such-balancer']) {
        for (const call of [hook, rollbackHook]) {
          await (await call(flaggerRequest('/api/v1/hooks/flagger', metadata(balancer, readToken)))).text();
          await (
            await call(flaggerRequest('/api/v1/hooks/flagger', metadata(balancer, UNKNOWN_TOKEN)))
          ).text();
        }
      }
    } finally {
      Object.assign(console, originals);
    }
    expect(seen.join('\n')).not.toContain(readToken);
    expect(seen.join('\n')).not.toContain(UNKNOWN_TOKEN);
  });
});

describe('fresh=true against a node that just changed', () => {
  it('the stored answer is one probe old; fresh=true probes the node first and reports the change', async () => {
    const stays = await peer('v2-modern');
    const changes = await peer('v2-modern');
    const id = await createBalancer('gate-fresh', [stays.url, changes.url], { allowLegacy: true });
    await probe(id);
    const before = (await (await askGate('gate-fresh', readToken)).json()) as Record<string, number | string>;
    expect(before).toMatchObject({ state: 'open', ready: true, fresh: false });

    // The node is redeployed on the same port as a legacy server.
    await changes.stop();
    peers.splice(peers.indexOf(changes), 1);
    const legacy = await peer('v1-stateful', changes.port);
    const stale = (await (await askGate('gate-fresh', readToken)).json()) as Record<string, unknown>;
    expect(stale).toMatchObject({ state: 'open', ready: true, fresh: false, observedAt: before.observedAt });
    expect(await legacy.received()).toEqual([]);
    const staysBefore = (await stays.received()).length;

    const askedAt = Date.now();
    const res = await askGate('gate-fresh', readToken, `revision=${REVISION}&fresh=true`);
    expect(res.status).toBe(200);
    const fresh = (await res.clone().json()) as Record<string, unknown>;
    expect((await argoMeasure(res, 'ready', (v) => v === true)).phase).toBe('Failed');
    expect(fresh).toMatchObject({ state: 'closed', ready: false, fresh: true });
    expect(Number(fresh.observedAt)).toBeGreaterThanOrEqual(askedAt);
    // Counted at the peers: the redeployed node saw the fresh probe (discover, then the allowed initialize).
    const seenByLegacy = await legacy.received();
    expect(seenByLegacy.length).toBeGreaterThan(0);
    expect(seenByLegacy.map((r) => r.method)).toContain('initialize');
    expect((await stays.received()).length).toBeGreaterThan(staysBefore);

    // Flagger's rollback hook with fresh: "true" probes again and rolls back; without a token nothing is probed.
    const countBefore = seenByLegacy.length;
    const rolled = await rollbackHook(
      flaggerRequest('/api/v1/hooks/flagger/rollback', metadata('gate-fresh', readToken, { fresh: 'true' })),
    );
    expect(rolled.status).toBe(200);
    expect(((await rolled.json()) as { gate: { fresh: boolean } }).gate.fresh).toBe(true);
    const countAfter = (await legacy.received()).length;
    expect(countAfter).toBeGreaterThan(countBefore);
    const denied = await rollbackHook(
      flaggerRequest('/api/v1/hooks/flagger/rollback', metadata('gate-fresh', null, { fresh: 'true' })),
    );
    expect(denied.status).toBe(401);
    const deniedArgo = await askGate('gate-fresh', null, `revision=${REVISION}&fresh=true`);
    expect(deniedArgo.status).toBe(401);
    expect((await legacy.received()).length).toBe(countAfter);
  });

  it('a probe that cannot finish within the wait answers cannot_judge at once, and the probe still lands', async () => {
    const hanging = await startFaultPeer(() => undefined);
    faults.push(hanging);
    const id = await createBalancer('gate-slow', [hanging.url], {
      timeoutMs: 1_500,
      legacyProbeTimeoutMs: 500,
    });
    process.env.ERAWATCH_GATE_FRESH_WAIT_MS = '300';
    (await import('@/lib/settings')).resetProcessSettings();
    try {
      const res = await askGate('gate-slow', readToken, `revision=${REVISION}&fresh=true`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { state: string; ready: boolean; fresh: boolean; reasons: string[] };
      expect(body).toMatchObject({ state: 'cannot_judge', ready: false, fresh: false });
      expect(body.reasons[0]).toBe(
        'the fresh probe did not finish within 300 ms (waiting for region default)',
      );
      await waitUntil('the hanging node to see the fresh probe', () => hanging.received.length > 0);
      expect(hanging.received.length).toBe(1);
    } finally {
      process.env.ERAWATCH_GATE_FRESH_WAIT_MS = '30000';
      (await import('@/lib/settings')).resetProcessSettings();
    }
    // The probe runs on to its own deadline and stores the timeout; waiting on it is bounded by that deadline.
    const { runOneCycle } = await import('@/tests/support/cycle');
    const { getStore } = await import('@/db/index');
    const next = await runOneCycle(await getStore({ settings: processSettings() }), id);
    expect(next.analysis.degradedNodes.map((d) => d.reason)).toEqual(['timeout']);
  });
});

describe('the contract', () => {
  it('the OpenAPI document has the gate with fresh and observedAt, and both Flagger hooks', async () => {
    const openapi = await handler(import('@/app/api/v1/openapi.json/route'), 'GET');
    const doc = (await (await openapi(adminRequest('/api/v1/openapi.json'))).json()) as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
      components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };
    };
    const gateOp = doc.paths['/balancers/{id}/gate']?.get as { parameters: Array<{ name: string }> };
    expect(gateOp.parameters.map((p) => p.name)).toEqual(['id', 'revision', 'fresh']);
    const answer = doc.components.schemas.GateAnswer;
    expect(Object.keys(answer?.properties ?? {})).toEqual(
      expect.arrayContaining(['ready', 'state', 'observedAt', 'fresh', 'balancerName']),
    );
    for (const p of ['/hooks/flagger', '/hooks/flagger/rollback']) {
      const op = doc.paths[p]?.post as {
        security: unknown[];
        description: string;
        responses: Record<string, unknown>;
      };
      expect(op.security).toEqual([]);
      expect(op.description).toContain('metadata.token');
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '401', '404', '409', '422']));
    }
    const input = doc.components.schemas.FlaggerHookInput;
    expect(input?.required).toEqual(expect.arrayContaining(['name', 'namespace', 'metadata']));
  });
});

interface AnalysisTemplate {
  spec: {
    args: Array<{ name: string; value?: string }>;
    metrics: Array<{
      successCondition: string;
      provider: { web: { url: string; headers: Array<{ key: string; value: string }>; jsonPath: string } };
    }>;
  };
}

interface Canary {
  spec: { analysis: { webhooks: Array<{ type: string; url: string; metadata: Record<string, string> }> } };
}

function docFile(name: string): string {
  const text = fs.readFileSync(path.join(docs, 'rollout-gates', name), 'utf8');
  expect(fs.readFileSync(path.join(docs, 'rollout-gates.md'), 'utf8')).toContain(text.trimEnd());
  return text;
}

describe('the documented AnalysisTemplate and Canary, sent as the tools send them', () => {
  it('AnalysisTemplate: open is Successful, closed and cannot_judge are Failed', async () => {
    const template = parse(docFile('analysis-template.yaml')) as AnalysisTemplate;
    const metric = template.spec.metrics[0];
    if (!metric) throw new Error('no metric');
    const { url, headers, jsonPath } = metric.provider.web;
    const field = /^\{\$\.(\w+)\}$/.exec(jsonPath)?.[1] ?? '';
    expect(field).toBe('ready');
    expect(metric.successCondition).toBe('result == true');
    const revision = template.spec.args.find((a) => a.name === 'revision')?.value ?? '';
    for (const [balancer, phase] of [
      ['gate-open', 'Successful'],
      ['gate-closed', 'Failed'],
      ['gate-auth', 'Failed'],
      ['no-such-balancer', 'Error'],
    ] as const) {
      const target = new URL(
        url.replace('{{args.balancer}}', balancer).replace('{{args.revision}}', revision),
      );
      const req = argoRequest(`${target.pathname}${target.search}`, null);
      for (const h of headers) req.headers.set(h.key, h.value.replace('{{args.erawatch-token}}', readToken));
      const res = await gate(req, { params: Promise.resolve({ id: balancer }) });
      expect((await argoMeasure(res, field, (v) => v === true)).phase, balancer).toBe(phase);
    }
  });

  it('Canary: confirm-promotion promotes only when open; rollback rolls back only when not', async () => {
    const canary = parse(docFile('canary.yaml')) as Canary;
    const hooks = canary.spec.analysis.webhooks;
    expect(hooks.map((h) => h.type)).toEqual(['confirm-promotion', 'rollback']);
    for (const [balancer, promotes, rollsBack] of [
      ['gate-open', true, false],
      ['gate-closed', false, true],
    ] as const) {
      for (const h of hooks) {
        const call = new URL(h.url).pathname.endsWith('/rollback') ? rollbackHook : hook;
        const res = await call(
          flaggerRequest(new URL(h.url).pathname, { ...h.metadata, balancer, token: readToken }, 'Promoting'),
        );
        const passed = flaggerPassed(res.status);
        expect(passed, `${h.type} on ${balancer}`).toBe(h.type === 'rollback' ? rollsBack : promotes);
      }
    }
  });
});
