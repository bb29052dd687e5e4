// Node names end to end, on the store of the run's engine: set through the REST API ({ url, name } items and
// nodeNames, bad names refused with nothing stored), taken from an x-served-by-style header on a node's own
// answers and from a sample's served-by value, and from reverse DNS for a DNS node; then seen in the node
// list, in an event's data.nodeName, in a webhook delivered to a real loopback receiver, and as the node label
// of an alert a real Alertmanager holds. Real MCP SDK peers, real poll cycles, real HTTP.
import { lookupService } from 'node:dns/promises';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '@/db/index';
import { createAlertSink } from '@/lib/alertmanager/sinks';
import { createSender } from '@/lib/deliver/http';
import type { DeliveryDeps } from '@/lib/deliver/deps';
import { createEgressAgent } from '@/lib/net/egress';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { startRoundRobinProxy, type RoundRobinProxy } from '@/lib/peers/round-robin-proxy';
import { closeDefaultProbe, systemReverseLookup } from '@/lib/poller/default-probe';
import { createReverseNames } from '@/lib/poller/reverse-dns';
import { processSettings } from '@/lib/settings';
import { createWebhook } from '@/lib/webhooks/endpoints';
import { startAlertmanager, type RunningAlertmanager } from '../../support/alertmanager';
import { runOneCycle } from '../../support/cycle';
import { deliverDue } from '../../support/deliver';
import { storeLocation } from '../../support/store';
import { testSettings } from '../../support/settings';
import { pollUntil } from '../../support/wait';
import { startReceiver, type Receiver } from '../webhooks/receiver';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-node-names-'));
process.env.ERAWATCH_DB = await storeLocation(dir, 'names.db');
process.env.ERAWATCH_ADMIN_SECRET = 'node-names-secret-0123456789abcdef';
process.env.ERAWATCH_BIND = '127.0.0.1';
process.env.ERAWATCH_ALLOW_LOOPBACK = '1';
process.env.ERAWATCH_RATE_LIMIT = '0';

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;
type Json = Record<string, unknown>;

async function call(
  handler: Handler,
  url: string,
  opts: { method?: string; body?: unknown; id?: string } = {},
) {
  const headers: Record<string, string> = {
    host: '127.0.0.1:3999',
    authorization: `Bearer ${process.env.ERAWATCH_ADMIN_SECRET}`,
  };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await handler(
    new Request(`http://127.0.0.1:3999${url}`, {
      method: opts.method ?? 'GET',
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    }),
    { params: Promise.resolve<Record<string, string>>(opts.id ? { id: opts.id } : {}) },
  );
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : null) as Json };
}

const routes = {
  balancers: (await import('@/app/api/v1/balancers/route')) as unknown as Record<string, Handler>,
  balancer: (await import('@/app/api/v1/balancers/[id]/route')) as unknown as Record<string, Handler>,
  nodes: (await import('@/app/api/v1/balancers/[id]/nodes/route')) as unknown as Record<string, Handler>,
  events: (await import('@/app/api/v1/events/route')) as unknown as Record<string, Handler>,
};
const post = (body: unknown) =>
  call(routes.balancers.POST as Handler, '/api/v1/balancers', { method: 'POST', body });
const patch = (id: string, body: unknown) =>
  call(routes.balancer.PATCH as Handler, `/api/v1/balancers/${id}`, { method: 'PATCH', body, id });
const getBalancer = (id: string) => call(routes.balancer.GET as Handler, `/api/v1/balancers/${id}`, { id });
const listNodes = async (id: string) =>
  (await call(routes.nodes.GET as Handler, `/api/v1/balancers/${id}/nodes`, { id })).json.items as Json[];

/** A real forwarding proxy in front of one node that says who answered, as a load balancer's pod header does. */
async function servedByProxy(upstream: string, servedBy: string) {
  const target = new URL(upstream);
  const server = http.createServer((req, res) => {
    const out = http.request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, { ...up.headers, 'x-served-by': servedBy });
        up.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${target.pathname}`,
    stop: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let store: Store;
const peers: RunningPeer[] = [];
const stops: Array<() => Promise<void>> = [];
let receiver: Receiver | null = null;
let am: RunningAlertmanager | null = null;
const agent = createEgressAgent({ allowLoopback: true, allowPrivate: false });
let m1: RunningPeer, m2: RunningPeer, l1: RunningPeer;

beforeAll(async () => {
  const { getStore } = await import('@/db/index');
  store = await getStore({ settings: processSettings() });
  [m1, m2, l1] = await Promise.all([
    startPeer('v2-modern', { name: 'search-api', version: '2.0.0' }),
    startPeer('v2-modern', { name: 'search-api', version: '2.0.0' }),
    startPeer('v1-stateful', { name: 'search-api', version: '1.0.0' }),
  ]);
  peers.push(m1, m2, l1);
  receiver = await startReceiver();
  am = await startAlertmanager();
}, 180_000);

afterAll(async () => {
  await closeDefaultProbe();
  for (const stop of stops) await stop();
  await Promise.all(peers.map((p) => p.stop()));
  await receiver?.close();
  await am?.stop();
  await agent.close();
  await store?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const cycle = (id: string, more: Parameters<typeof runOneCycle>[2] = {}) =>
  runOneCycle(store, id, { settings: testSettings(), ...more });

const deliveryDeps = (): DeliveryDeps => ({
  now: Date.now,
  random: () => 0.5,
  send: createSender(agent),
  timeoutMs: 10_000,
  disableAfterMs: 5 * 86_400_000,
  batchSize: 50,
  concurrency: 4,
  retentionMs: 30 * 86_400_000,
  publicUrl: 'http://127.0.0.1:3999',
  variables: {},
});

describe('node names through the API', () => {
  let id = '';

  it('refuses bad names with the field named, storing nothing', async () => {
    const base = { publicUrl: m1.url, samplesPerCycle: 0 };
    const cases: Array<[unknown, string, string]> = [
      [[{ url: m1.url, name: '   ' }], '/nodeUrls/0/name', 'must not be empty'],
      [[m2.url, { url: m1.url, name: 'n'.repeat(81) }], '/nodeUrls/1/name', 'must be at most 80 characters'],
      [[{ url: m1.url, name: 'search\u00071' }], '/nodeUrls/0/name', 'must not contain control characters'],
      [[{ url: m1.url }], '/nodeUrls/0', 'must be a node URL, or { url, name }'],
    ];
    for (const [nodeUrls, pointer, detail] of cases) {
      const res = await post({ ...base, name: 'refused-names', nodeUrls });
      expect(res.status).toBe(422);
      expect(res.json.errors).toEqual([{ pointer, detail }]);
    }
    const unknown = await post({
      ...base,
      name: 'refused-names',
      nodeUrls: [m1.url],
      nodeNames: { [m2.url]: 'x' },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.json.errors).toEqual([
      { pointer: '/nodeNames', detail: `names "${m2.url}", which is not in nodeUrls` },
    ]);
    const list = await call(routes.balancers.GET as Handler, '/api/v1/balancers?q=refused-names');
    expect(list.json.items).toEqual([]);
  });

  it('takes { url, name } items and nodeNames, keeps names across a node list change, and round-trips', async () => {
    const created = await post({
      name: 'named-fleet',
      publicUrl: m1.url,
      nodeUrls: [{ url: m1.url, name: ' search-1 ' }, m2.url, l1.url],
      samplesPerCycle: 0,
      allowLegacy: true,
    });
    expect(created.status).toBe(201);
    id = String(created.json.id);
    expect(created.json.nodeUrls).toEqual([m1.url, m2.url, l1.url]);
    expect(created.json.nodeNames).toEqual({ [m1.url]: 'search-1' });

    const named = await patch(id, { nodeNames: { [m1.url]: 'search-1', [l1.url]: 'search-3' } });
    expect(named.status).toBe(200);
    expect(named.json.nodeNames).toEqual({ [m1.url]: 'search-1', [l1.url]: 'search-3' });
    // A new list without nodeNames keeps the names of the URLs it still lists; a name given in it wins.
    const relisted = await patch(id, { nodeUrls: [m1.url, { url: m2.url, name: 'search-2' }, l1.url] });
    expect(relisted.json.nodeNames).toEqual({
      [m1.url]: 'search-1',
      [m2.url]: 'search-2',
      [l1.url]: 'search-3',
    });
    // A bad name in a change is refused and changes nothing.
    const bad = await patch(id, { nodeNames: { [m1.url]: '' } });
    expect(bad.status).toBe(422);
    expect((await getBalancer(id)).json.nodeNames).toEqual(relisted.json.nodeNames);
    // GET → PATCH with what it gave back changes nothing.
    const current = (await getBalancer(id)).json;
    const again = await patch(id, { nodeUrls: current.nodeUrls, nodeNames: current.nodeNames });
    expect(again.status).toBe(200);
    expect(again.json.nodeNames).toEqual(current.nodeNames);

    await cycle(id);
    const nodes = await listNodes(id);
    expect(Object.fromEntries(nodes.map((n) => [n.url, n.name]))).toEqual({
      [m1.url]: 'search-1',
      [m2.url]: 'search-2',
      [l1.url]: 'search-3',
    });
  }, 120_000);

  it('an alert about the one odd node carries its name as the node label in a real Alertmanager', async () => {
    if (!am) throw new Error('alertmanager not started');
    const alertmanager = am;
    await createAlertSink(store, { name: 'names-am', urls: [alertmanager.url], balancerIds: [id] });
    await deliverDue(store, deliveryDeps());
    const alerts = await pollUntil('the alert in Alertmanager', 60_000, async () => {
      const held = await alertmanager.alerts();
      return held.length > 0 ? held : null;
    });
    expect(alerts.map((a) => a.labels)).toEqual([
      {
        alertname: 'ErawatchNonUniform',
        balancer: 'named-fleet',
        severity: 'critical',
        split: 'era-split',
        node: 'search-3',
      },
    ]);
    // The partition in words names nodes by name too.
    expect(alerts[0]?.annotations.partition).toContain('search-3');
  }, 120_000);

  it('an event about a node carries data.nodeName, in the events API and in a delivered webhook', async () => {
    if (!receiver) throw new Error('receiver not started');
    await createWebhook(store, {
      name: 'names-hook',
      url: receiver.url('/ok'),
      balancerIds: [id],
      eventTypes: ['node.unavailable'],
    });
    await l1.stop();
    await cycle(id);
    const events = await call(
      routes.events.GET as Handler,
      `/api/v1/events?balancerId=${id}&type=node.unavailable`,
    );
    expect(events.status).toBe(200);
    const items = events.json.items as Json[];
    expect(items).toHaveLength(1);
    expect(items[0]?.data).toMatchObject({ nodeName: 'search-3' });

    await deliverDue(store, deliveryDeps());
    const got = receiver.received.filter((r) => r.path === '/ok');
    expect(got).toHaveLength(1);
    const body = JSON.parse(got[0]?.body ?? '{}') as { type: string; data: Json };
    expect(body.type).toBe('node.unavailable');
    expect(body.data).toMatchObject({ nodeName: 'search-3', nodeId: items[0]?.nodeId, balancerId: id });
  }, 120_000);
});

describe('names from x-served-by, samples and reverse DNS', () => {
  let rr: RoundRobinProxy;

  it("takes a node's own x-served-by value (escaped, cut to 80) and a sample's served-by value", async () => {
    const pod = await servedByProxy(m2.url, 'pod-search-7');
    const long = await servedByProxy(m2.url, `pod-${'x'.repeat(120)}`);
    stops.push(pod.stop, long.stop);
    rr = await startRoundRobinProxy({ upstreams: [m1.url] });
    stops.push(() => rr.stop());
    const created = await post({
      name: 'served-by-fleet',
      publicUrl: rr.url,
      nodeUrls: [pod.url, long.url],
      samplesPerCycle: 1,
      attributionHeader: 'x-served-by',
    });
    expect(created.status).toBe(201);
    const id = String(created.json.id);
    await cycle(id);
    const nodes = await listNodes(id);
    const byUrl = new Map(nodes.map((n) => [`${String(n.origin)} ${String(n.url)}`, n]));
    expect(byUrl.get(`listed ${pod.url}`)?.name).toBe('pod-search-7');
    const cut = String(byUrl.get(`listed ${long.url}`)?.name);
    expect(cut).toHaveLength(80);
    expect(cut).toBe(`pod-${'x'.repeat(75)}…`);
    const m1HostPort = new URL(m1.url).host;
    const sampled = nodes.find((n) => n.origin === 'sample');
    expect(sampled).toMatchObject({ servedBy: m1HostPort, name: m1HostPort });

    // A configured name wins over the header; taking it away gives the header's name back.
    await patch(id, { nodeNames: { [pod.url]: 'search-7' } });
    await cycle(id);
    expect((await listNodes(id)).find((n) => n.url === pod.url)?.name).toBe('search-7');
    await patch(id, { nodeNames: {} });
    await cycle(id);
    expect((await listNodes(id)).find((n) => n.url === pod.url)?.name).toBe('pod-search-7');
  }, 120_000);

  it("names a DNS node by its address's reverse name, from the system's resolver", async () => {
    const expected = await lookupService('127.0.0.1', 0).then(
      (r) => r.hostname,
      () => null,
    );
    expect(expected, 'this machine names 127.0.0.1 offline (/etc/hosts)').not.toBeNull();
    const port = new URL(m1.url).port;
    const created = await post({
      name: 'dns-fleet',
      publicUrl: `http://localhost:${port}/mcp`,
      resolveDns: true,
      samplesPerCycle: 0,
    });
    expect(created.status).toBe(201);
    const id = String(created.json.id);
    const asked: string[] = [];
    const reverse = createReverseNames({
      lookup: (a) => {
        asked.push(a);
        return systemReverseLookup(a);
      },
    });
    await cycle(id, { resolve: async () => ['127.0.0.1'], reverse });
    await cycle(id, { resolve: async () => ['127.0.0.1'], reverse });
    const [node] = await listNodes(id);
    expect(node).toMatchObject({ origin: 'dns', address: '127.0.0.1', name: expected });
    // Cached: the second cycle did not ask again.
    expect(asked).toEqual(['127.0.0.1']);
  }, 120_000);
});
