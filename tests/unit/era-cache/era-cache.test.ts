import { describe, expect, it } from 'vitest';
import {
  EraCache,
  httpPeerKey,
  stdioPeerKey,
  summarizeContradictions,
  type PeerIncarnation,
} from '@/lib/probe/era-cache';
import type { ClientEra, Verdict } from '@/lib/probe/types';

function verdict(
  era: ClientEra,
  version: string | null = era === 'modern' ? '2026-07-28' : '2025-11-25',
): Verdict {
  return {
    url: 'stdio:test',
    verdict: era,
    reason: era === 'unavailable' ? 'timeout' : 'discover_result',
    negotiatedVersion: era === 'unavailable' ? null : version,
    supported: [],
    servedEras: 'unknown',
    serverInfo: null,
    cache: null,
    initializeSent: era === 'legacy',
    anomaly: null,
    evidence: [],
    probedAt: 0,
    durationMs: 0,
    address: null,
    servedBy: null,
  };
}

function clock(start = 1_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

const at: PeerIncarnation = { endpoint: 'node server.mjs', instance: '100' };

describe('peer keys', () => {
  it('keys stdio peers by command, arguments and configured environment, ignoring env order', () => {
    const a = stdioPeerKey({ command: 'node', args: ['s.mjs'], env: { A: '1', B: '2' } });
    expect(stdioPeerKey({ command: 'node', args: ['s.mjs'], env: { B: '2', A: '1' } })).toBe(a);
    expect(stdioPeerKey({ command: 'node', args: ['s.mjs', '--x'], env: { A: '1', B: '2' } })).not.toBe(a);
    expect(stdioPeerKey({ command: 'node', args: ['s.mjs'], env: { A: '1', B: '3' } })).not.toBe(a);
    expect(stdioPeerKey({ command: 'nodejs', args: ['s.mjs'], env: { A: '1', B: '2' } })).not.toBe(a);
    // Arguments are not concatenated: ['a b'] and ['a', 'b'] are different launches.
    expect(stdioPeerKey({ command: 'x', args: ['a b'] })).not.toBe(
      stdioPeerKey({ command: 'x', args: ['a', 'b'] }),
    );
  });

  it('keys two launches of one command line apart, while a key stays bound to its command line', () => {
    const spec = { command: 'node', args: ['s.mjs'], env: { A: '1' }, cwd: '/srv' };
    const left = stdioPeerKey(spec, 'left');
    expect(stdioPeerKey(spec, 'right')).not.toBe(left);
    expect(stdioPeerKey({ ...spec }, 'left')).toBe(left);
    // The same entry name with another command is another peer: a cached era never follows a name.
    expect(stdioPeerKey({ ...spec, args: ['other.mjs'] }, 'left')).not.toBe(left);
    expect(stdioPeerKey({ ...spec, cwd: '/elsewhere' }, 'left')).not.toBe(left);
  });

  it('keys HTTP peers by endpoint (origin and path) and credential', () => {
    expect(httpPeerKey('http://127.0.0.1:8080/mcp')).not.toBe(httpPeerKey('http://127.0.0.1:8080/other'));
    expect(httpPeerKey('http://127.0.0.1:8080/mcp')).toBe(httpPeerKey('HTTP://127.0.0.1:8080/mcp'));
    expect(httpPeerKey('http://127.0.0.1:80/mcp')).toBe(httpPeerKey('http://127.0.0.1/mcp'));
    expect(httpPeerKey('http://127.0.0.1:8080/mcp', 'token:a')).not.toBe(
      httpPeerKey('http://127.0.0.1:8080/mcp'),
    );
    expect(httpPeerKey('http://127.0.0.1:8080/mcp')).not.toBe(httpPeerKey('http://127.0.0.1:8081/mcp'));
    expect(httpPeerKey('http://127.0.0.1:8080/mcp')).not.toBe(httpPeerKey('https://127.0.0.1:8080/mcp'));
  });
});

describe('EraCache', () => {
  it('returns the cached era until it expires', () => {
    const c = clock();
    const cache = new EraCache({ ttlMs: 1_000 }, c.now);
    cache.remember('k', at, verdict('legacy'));
    c.advance(999);
    expect(cache.lookup('k', at)).toMatchObject({ era: 'legacy', version: '2025-11-25' });
    c.advance(1);
    expect(cache.lookup('k', at)).toBeNull();
    expect(cache.recentDiscards().at(-1)).toMatchObject({ key: 'k', reason: 'expired' });
  });

  it.each([
    ['a restarted process', { endpoint: at.endpoint, instance: '101' }, 'restarted'],
    ['a changed endpoint', { endpoint: 'node other.mjs', instance: '100' }, 'endpoint_changed'],
  ] as const)('discards the era on %s', (_label, next, reason) => {
    const cache = new EraCache({ ttlMs: 60_000 }, clock().now);
    cache.remember('k', at, verdict('modern'));
    expect(cache.lookup('k', next)).toBeNull();
    expect(cache.recentDiscards().at(-1)?.reason).toBe(reason);
    // Discarded, not merely hidden: the old incarnation no longer finds it either.
    expect(cache.lookup('k', at)).toBeNull();
  });

  it('caches nothing for an unavailable verdict and drops what was cached', () => {
    const cache = new EraCache({ ttlMs: 60_000 }, clock().now);
    cache.remember('k', at, verdict('modern'));
    expect(cache.remember('k', at, verdict('unavailable'))).toBeNull();
    expect(cache.lookup('k', at)).toBeNull();
    expect(cache.size).toBe(0);
  });

  it('asks for a re-probe when a server believed modern answers -32022', () => {
    const cache = new EraCache({ ttlMs: 60_000 }, clock().now);
    cache.remember('k', at, verdict('modern'));
    const seen = cache.observe('k', { method: 'tools/list', result: false, errorCode: -32022 });
    expect(seen).toMatchObject({ action: 'reprobe', reason: 'unsupported_version_32022' });
    expect(cache.lookup('k', at)).toBeNull();
  });

  it('asks for a re-probe on -32601 only for a method that had been working', () => {
    const cache = new EraCache({ ttlMs: 60_000 }, clock().now);
    cache.remember('k', at, verdict('legacy'));
    // Never worked: an ordinary protocol answer, the era stands.
    expect(cache.observe('k', { method: 'prompts/list', result: false, errorCode: -32601 })).toEqual({
      action: 'keep',
    });
    expect(cache.observe('k', { method: 'tools/list', result: true })).toEqual({ action: 'keep' });
    expect(cache.observe('k', { method: 'tools/list', result: false, errorCode: -32601 })).toMatchObject({
      action: 'reprobe',
      reason: 'method_vanished_32601',
    });
    expect(cache.lookup('k', at)).toBeNull();
  });

  it('keeps the era on other errors', () => {
    const cache = new EraCache({ ttlMs: 60_000 }, clock().now);
    cache.remember('k', at, verdict('modern'));
    cache.observe('k', { method: 'tools/call', result: true });
    for (const code of [-32602, -32603, -32000]) {
      expect(cache.observe('k', { method: 'tools/call', result: false, errorCode: code })).toEqual({
        action: 'keep',
      });
    }
    expect(cache.lookup('k', at)?.era).toBe('modern');
  });

  it('evicts the oldest entries beyond maxEntries', () => {
    const cache = new EraCache({ ttlMs: 60_000, maxEntries: 2 }, clock().now);
    cache.remember('a', at, verdict('modern'));
    cache.remember('b', at, verdict('modern'));
    cache.remember('c', at, verdict('legacy'));
    expect(cache.lookup('a', at)).toBeNull();
    expect(cache.lookup('b', at)?.era).toBe('modern');
    expect(cache.lookup('c', at)?.era).toBe('legacy');
  });

  it.each([
    [{ ttlMs: 0 }, 'ttlMs'],
    [{ ttlMs: Number.NaN }, 'ttlMs'],
    [{ ttlMs: 10, maxEntries: 0 }, 'maxEntries'],
  ])('refuses bad options %o', (opts, field) => {
    expect(() => new EraCache(opts)).toThrow(field);
  });
});

describe('sample contradictions (a caching client through one public URL)', () => {
  const pub: PeerIncarnation = { endpoint: 'http://127.0.0.1:9000/mcp', instance: null };

  it('caches the first sample and counts later ones that contradict it', () => {
    const cache = new EraCache({ ttlMs: 60_000 }, clock().now);
    const key = httpPeerKey(pub.endpoint);
    const results = [
      verdict('modern'),
      verdict('modern'),
      verdict('legacy'),
      verdict('unavailable'),
      verdict('modern', '2026-12-01'),
    ].map((v) => cache.compareSample(key, pub, v));
    expect(results.map((r) => r.outcome)).toEqual([
      'stored',
      'agrees',
      'contradicts',
      'unavailable',
      'contradicts',
    ]);
    expect(results[2]?.differs).toEqual(['era', 'version']);
    expect(results[4]?.differs).toEqual(['version']);
    expect(summarizeContradictions(results)).toEqual({ compared: 3, contradicting: 2, share: 2 / 3 });
  });

  it('with adopt, a contradicting sample becomes the cached era, as after a re-probe', () => {
    const cache = new EraCache({ ttlMs: 60_000 }, clock().now);
    const key = httpPeerKey(pub.endpoint);
    const outcomes = [verdict('modern'), verdict('legacy'), verdict('legacy')].map(
      (v) => cache.compareSample(key, pub, v, { adopt: true }).outcome,
    );
    expect(outcomes).toEqual(['stored', 'contradicts', 'agrees']);
  });

  it('reports a share of 0 when nothing was compared', () => {
    expect(summarizeContradictions([])).toEqual({ compared: 0, contradicting: 0, share: 0 });
  });
});

describe('a late modern answer', () => {
  it('contradicts a cached legacy era: the entry is discarded for a re-probe', () => {
    const c = clock();
    const cache = new EraCache({ ttlMs: 60_000 }, c.now);
    cache.remember('k', at, verdict('legacy'));
    const seen = cache.observeLateModern('k');
    expect(seen).toMatchObject({ action: 'reprobe', reason: 'late_modern_answer' });
    expect(cache.lookup('k', at)).toBeNull();
    expect(cache.recentDiscards()).toEqual([{ key: 'k', reason: 'contradicted', at: 1_000 }]);
  });

  it('agrees with a cached modern era, and with nothing cached there is nothing to contradict', () => {
    const cache = new EraCache({ ttlMs: 60_000 });
    cache.remember('k', at, verdict('modern'));
    expect(cache.observeLateModern('k')).toEqual({ action: 'keep' });
    expect(cache.lookup('k', at)?.era).toBe('modern');
    expect(cache.observeLateModern('missing')).toEqual({ action: 'keep' });
    expect(cache.recentDiscards()).toEqual([]);
  });
});
