// /metrics after a real cycle against a real MCP SDK server, with an open rollout window: `promtool check
// metrics` passes on it, labels stay bounded, and every series the shipped rules use is exported (or owned
// by the store and worker, which count write errors, failed cycles and the webhook backlog).
import { processSettings } from '@/lib/settings';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { runPromtool } from '@/tests/support/prometheus';
import { startLocalPoller, type LocalPoller } from '../../support/local-poller';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-metrics-'));
process.env.ERAWATCH_DB = path.join(dir, 'metrics.db');
process.env.ERAWATCH_ADMIN_SECRET = 'metrics-admin-secret-0123456789abcdef';
process.env.ERAWATCH_BIND = '127.0.0.1';
process.env.ERAWATCH_ALLOW_LOOPBACK = '1';
process.env.ERAWATCH_RATE_LIMIT = '0';

const ADMIN = process.env.ERAWATCH_ADMIN_SECRET;
const rulesFile = path.resolve(import.meta.dirname, '../../../docs/prometheus/erawatch.rules.yaml');
/** Series the rules use that the store and worker export (write errors, failed cycles, webhook backlog). */
const STORE_AND_WORKER_SERIES = [
  'erawatch_store_write_errors_total',
  'erawatch_cycles_failed_total',
  'erawatch_webhook_oldest_pending_seconds',
];
const BOUNDED_LABELS = new Set(['balancer', 'state', 'era', 'reason', 'outcome', 'status', 'revision', 'le']);

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;
let peer: RunningPeer | null = null;
let text = '';

function request(url: string, init: { method?: string; body?: unknown } = {}): Request {
  const headers: Record<string, string> = { host: '127.0.0.1:3999', authorization: `Bearer ${ADMIN}` };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return new Request(`http://127.0.0.1:3999${url}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

async function route(mod: Promise<unknown>, method: string): Promise<Handler> {
  const handler = ((await mod) as Record<string, Handler | undefined>)[method];
  if (!handler) throw new Error(`no ${method}`);
  return handler;
}

let localPoll: LocalPoller | null = null;

beforeAll(async () => {
  // Probe-now asks this process's poll role, as `next start` runs one.
  localPoll = await startLocalPoller();
  peer = await startPeer('v2-modern', { name: 'metrics-node', version: '2.4.0' });
  const url = peer.url;
  const create = await route(import('@/app/api/v1/balancers/route'), 'POST');
  const res = await create(
    request('/api/v1/balancers', {
      method: 'POST',
      body: { name: 'metrics-fleet', publicUrl: url, nodeUrls: [url], samplesPerCycle: 0 },
    }),
  );
  expect(res.status).toBe(201);
  const id = ((await res.json()) as { id: string }).id;
  const params = { params: Promise.resolve({ id }) };
  const open = await route(import('@/app/api/v1/balancers/[id]/rollouts/route'), 'POST');
  const deadline = Date.now() + 3_600_000;
  const opened = await open(
    request(`/api/v1/balancers/${id}/rollouts`, {
      method: 'POST',
      body: { target: { negotiatedVersion: '2026-07-28' }, deadline },
    }),
    params,
  );
  expect(opened.status).toBe(201);
  // A second balancer whose window names only an era: its deadline series has no revision label. It is
  // probed only from a region with no worker here, so it stays unprobed.
  const other = await create(
    request('/api/v1/balancers', {
      method: 'POST',
      body: {
        name: 'era-fleet',
        publicUrl: url,
        nodeUrls: [url],
        samplesPerCycle: 0,
        regions: ['elsewhere'],
      },
    }),
  );
  const otherId = ((await other.json()) as { id: string }).id;
  const eraWindow = await open(
    request(`/api/v1/balancers/${otherId}/rollouts`, {
      method: 'POST',
      body: { target: { era: 'modern' }, deadline },
    }),
    { params: Promise.resolve({ id: otherId }) },
  );
  expect(eraWindow.status).toBe(201);
  const probe = await route(import('@/app/api/v1/balancers/[id]/probe/route'), 'POST');
  expect((await probe(request(`/api/v1/balancers/${id}/probe`, { method: 'POST' }), params)).status).toBe(
    200,
  );
  const metrics = await route(import('@/app/(ops)/metrics/route'), 'GET');
  const scraped = await metrics(request('/metrics'));
  expect(scraped.status).toBe(200);
  text = await scraped.text();
});

afterAll(async () => {
  await localPoll?.stop();
  await peer?.stop();
  const { closeDefaultProbe } = await import('@/lib/poller/default-probe');
  await closeDefaultProbe();
  const { getStore } = await import('@/db/index');
  await (await getStore({ settings: processSettings() })).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('/metrics conventions', () => {
  it('passes promtool check metrics', () => {
    const run = runPromtool(['check', 'metrics'], text);
    expect(run.output).toBe('');
    expect(run.code).toBe(0);
  });

  it('exports the gate, the open window deadline and the last cycle age from the store', () => {
    expect(text).toContain('erawatch_gate_open{balancer="metrics-fleet",revision="2026-07-28"} 1');
    const deadline =
      /erawatch_rollout_window_deadline_timestamp_seconds\{balancer="metrics-fleet",revision="2026-07-28"\} (\S+)/.exec(
        text,
      );
    expect(Number(deadline?.[1])).toBeGreaterThan(Date.now() / 1000);
    expect(text).toMatch(
      /^erawatch_rollout_window_deadline_timestamp_seconds\{balancer="era-fleet"\} [\d.]+$/m,
    );
    // Not probed yet: no gate answer is exported for it, rather than a made-up one.
    expect(text).not.toContain('erawatch_gate_open{balancer="era-fleet"');
    const age = /^erawatch_poller_last_cycle_age_seconds (\S+)$/m.exec(text);
    expect(Number(age?.[1])).toBeGreaterThanOrEqual(0);
    expect(Number(age?.[1])).toBeLessThan(60);
    expect(text).toMatch(/^process_cpu_seconds_total /m);
    expect(text).not.toContain('erawatch_process_');
  });

  it('labels only bounded dimensions: never a node URL, address or port', () => {
    const names = new Set<string>();
    for (const line of text.split('\n')) {
      if (!line.startsWith('erawatch_')) continue;
      for (const m of line.matchAll(/([a-z_]+)="/g)) if (m[1]) names.add(m[1]);
    }
    expect([...names].filter((n) => !BOUNDED_LABELS.has(n))).toEqual([]);
    expect(text).not.toContain(String(peer?.port));
    expect(text).not.toContain('127.0.0.1');
    expect(text).not.toContain(ADMIN);
  });

  it('every series the shipped rules use is exported here or by the store and worker', () => {
    const used = new Set(fs.readFileSync(rulesFile, 'utf8').match(/erawatch_[a-z_]+/g) ?? []);
    const exported = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
    const missing = [...used].filter((n) => !exported.has(n) && !STORE_AND_WORKER_SERIES.includes(n));
    expect(missing).toEqual([]);
  });
});
