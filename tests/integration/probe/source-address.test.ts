// ERAWATCH_PROBE_SOURCE_ADDRESS: the poller's probes connect from that address, so a front door that routes
// by source address (geo-routing) sends them to that address' pool. Real peers behind a real proxy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeers, type RunningPeer } from '@/lib/peers/spawn';
import { closeDefaultProbe, createDefaultProbe } from '@/lib/poller/default-probe';
import { DEFAULT_PROBE_OPTIONS } from '@/lib/probe';
import { startSourceRoutingProxy, type SourceRoutingProxy } from '../../support/source-routing-proxy';
import { testSettings } from '../../support/settings';

let peers: RunningPeer[] = [];
let proxy: SourceRoutingProxy | null = null;

beforeAll(async () => {
  peers = await startPeers([
    { kind: 'v2-modern', name: 'shop', version: '2.0.0' },
    { kind: 'v2-modern', name: 'shop', version: '3.0.0' },
  ]);
  const [west, east] = peers;
  if (!west || !east) throw new Error('peers did not start');
  proxy = await startSourceRoutingProxy({ '127.0.0.2': west.url, '127.0.0.3': east.url });
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await Promise.all(peers.map((p) => p.stop()));
  await closeDefaultProbe();
});

describe('ERAWATCH_PROBE_SOURCE_ADDRESS', () => {
  it.each([
    ['127.0.0.2', '2.0.0'],
    ['127.0.0.3', '3.0.0'],
  ])('probes from %s reach that address’ pool (%s)', async (source, version) => {
    if (!proxy) throw new Error('no proxy');
    const before = proxy.seen(source);
    const probe = createDefaultProbe(testSettings({ ERAWATCH_PROBE_SOURCE_ADDRESS: source }));
    const v = await probe({ url: proxy.url }, DEFAULT_PROBE_OPTIONS);
    expect(v.verdict).toBe('modern');
    expect(v.serverInfo?.version).toBe(version);
    expect(proxy.seen(source)).toBeGreaterThan(before);
  });

  it('without it the system picks the source (127.0.0.1 on loopback), which this front door refuses', async () => {
    if (!proxy) throw new Error('no proxy');
    const probe = createDefaultProbe(testSettings());
    const v = await probe({ url: proxy.url }, DEFAULT_PROBE_OPTIONS);
    expect(v.verdict).toBe('unavailable');
    expect(proxy.seen('127.0.0.1')).toBeGreaterThan(0);
  });
});
