// A real Prometheus 2.42 scrapes a real `next start` of Erawatch with a read token from credentials_file, as
// the shipped example config says, and its query API returns the balancer's state and gate series.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureNextBuild, startNextServer, type NextServer } from '@/lib/demo/next-app';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { runPromtool, startPrometheus, type RunningPrometheus } from '@/tests/support/prometheus';
import { freePort, pollUntil } from '@/tests/support/wait';

const root = path.resolve(import.meta.dirname, '../../..');
const ADMIN = 'scrape-admin-secret-0123456789abcdef';
let dir = '';
let server: NextServer | null = null;
let peer: RunningPeer | null = null;
let prometheus: RunningPrometheus | null = null;
let readToken = '';

async function api(pathname: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${server?.url ?? ''}${pathname}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${ADMIN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  expect(res.status, pathname).toBeLessThan(300);
  return (await res.json()) as Record<string, unknown>;
}

beforeAll(async () => {
  await ensureNextBuild(root);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-scrape-'));
  peer = await startPeer('v2-modern', { name: 'scrape-node', version: '2.4.0' });
  server = await startNextServer({
    root,
    host: '127.0.0.1',
    port: await freePort(),
    env: {
      ERAWATCH_DB: path.join(dir, 'scrape.db'),
      ERAWATCH_ADMIN_SECRET: ADMIN,
      // The poll role runs in the web process: probe-now asks it for the cycle.
      ERAWATCH_WEBHOOKS: 'off',
      ERAWATCH_ALLOW_LOOPBACK: '1',
      ERAWATCH_CONFIG: path.join(dir, 'absent.yaml'),
    },
  });
  const balancer = await api('/api/v1/balancers', {
    name: 'scrape-fleet',
    publicUrl: peer.url,
    nodeUrls: [peer.url],
    samplesPerCycle: 0,
  });
  await api(`/api/v1/balancers/${String(balancer.id)}/probe`, {});
  readToken = String((await api('/api/v1/tokens', { name: 'prometheus', scope: 'read' })).token);

  // The shipped example, pointed at this server and a temp token file; nothing else changed.
  const example = fs.readFileSync(path.join(root, 'docs/prometheus/prometheus.example.yml'), 'utf8');
  const target = new URL(server.url);
  const config = example
    .replaceAll('/etc/prometheus/erawatch-read-token', 'erawatch-read-token')
    .replace('scheme: https', 'scheme: http')
    .replace("'erawatch.internal:443'", `'${target.host}'`)
    .replace('scrape_interval: 30s', 'scrape_interval: 1s')
    .replace('evaluation_interval: 30s', 'evaluation_interval: 1s');
  prometheus = await startPrometheus(config, {
    'erawatch-read-token': `${readToken}\n`,
    'erawatch.rules.yaml': fs.readFileSync(path.join(root, 'docs/prometheus/erawatch.rules.yaml'), 'utf8'),
  });
}, 600_000);

afterAll(async () => {
  await prometheus?.stop();
  await server?.stop();
  await peer?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('a real Prometheus scraping Erawatch', () => {
  it('scrapes /metrics with the read token and answers queries for the balancer state and gate', async () => {
    const up = await pollUntil('the Erawatch target to be up', 60_000, async () => {
      const [t] = (await prometheus?.targets()) ?? [];
      return t?.health === 'up' ? t : null;
    }).catch((err: unknown) => {
      throw new Error(`${String(err)}\n${prometheus?.log() ?? ''}`);
    });
    expect(up.scrapeUrl).toBe(`${server?.url ?? ''}/metrics`);
    expect(up.lastError).toBe('');

    const state = await pollUntil('erawatch_balancer_state in the query API', 60_000, async () => {
      const result = (await prometheus?.query('erawatch_balancer_state{balancer="scrape-fleet"}')) ?? [];
      return result.length > 0 ? result : null;
    });
    expect(state.map((s) => [s.metric.job, s.metric.balancer, s.metric.state, s.value[1]])).toEqual([
      ['erawatch', 'scrape-fleet', 'uniform', '1'],
    ]);
    const gate = (await prometheus?.query('erawatch_gate_open{balancer="scrape-fleet"}')) ?? [];
    expect(gate.map((s) => [s.metric.revision, s.value[1]])).toEqual([['2026-07-28', '1']]);
    const rules = await fetch(`${prometheus?.url ?? ''}/api/v1/rules`);
    const groups = ((await rules.json()) as { data: { groups: Array<{ name: string }> } }).data.groups;
    expect(groups.map((g) => g.name)).toEqual(['erawatch-fleet', 'erawatch-service']);
  });

  it('without the token the scrape is refused: the target goes down with a 401', async () => {
    fs.writeFileSync(path.join(prometheus?.dir ?? '', 'erawatch-read-token'), 'ewt_read_revoked\n');
    const down = await pollUntil('the target to report the refused scrape', 60_000, async () => {
      const [t] = (await prometheus?.targets()) ?? [];
      return t?.health === 'down' ? t : null;
    });
    expect(down.lastError).toContain('401');
  });

  it('promtool check metrics passes on the /metrics answer of the running server', async () => {
    const res = await fetch(`${server?.url ?? ''}/metrics`, {
      headers: { authorization: `Bearer ${readToken}` },
      signal: AbortSignal.timeout(15_000),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('erawatch_balancer_state{balancer="scrape-fleet",state="uniform"} 1');
    const run = runPromtool(['check', 'metrics'], text);
    expect(run.output).toBe('');
    expect(run.code).toBe(0);
  });
});
