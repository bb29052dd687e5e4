import { describe, expect, it } from 'vitest';
import { CreateBalancerInput } from '@/lib/schemas/balancer';
import { unavailableVerdict } from '@/lib/probe/types';
import { hostOf, planCycle, resolveHeaders } from '@/lib/poller/targets';

const settings = (over: Record<string, unknown> = {}) =>
  CreateBalancerInput.parse({ name: 'b', publicUrl: 'https://api.example.com/mcp', ...over });

describe('resolveHeaders', () => {
  it.each([
    ['plain values pass through', { A: 'x' }, {}, { A: 'x' }, []],
    [
      'env: references resolve',
      { Authorization: 'env:TOKEN' },
      { TOKEN: 'Bearer t' },
      { Authorization: 'Bearer t' },
      [],
    ],
    ['an unset variable is reported, not sent', { Authorization: 'env:TOKEN' }, {}, {}, ['TOKEN']],
    ['an empty variable counts as unset', { Authorization: 'env:TOKEN' }, { TOKEN: '' }, {}, ['TOKEN']],
    ['a variable with a line break is refused', { A: 'env:BAD' }, { BAD: 'a\r\nX-Evil: 1' }, {}, ['BAD']],
    [
      'a value that only looks like a reference stays literal',
      { A: 'env:not valid' },
      {},
      { A: 'env:not valid' },
      [],
    ],
  ])('%s', (_label, headers, env, expected, missing) => {
    expect(resolveHeaders(headers, env)).toEqual({ headers: expected, missing });
  });
});

describe('planCycle', () => {
  it('listed URLs, one node per DNS address on the public URL, K identical samples', () => {
    const plan = planCycle(
      settings({
        nodeUrls: ['http://10.0.0.1:8080/mcp', 'http://10.0.0.1:8080/mcp', 'http://10.0.0.2:8080/mcp'],
        resolveDns: true,
        samplesPerCycle: 3,
        attributionHeader: 'x-served-by',
        allowLegacy: true,
        headers: { 'X-Key': 'k' },
      }),
      ['10.1.0.1', '2001:db8::1', '10.1.0.1'],
      {},
    );
    expect(plan.nodes.map((n) => [n.key, n.origin, n.url, n.address])).toEqual([
      ['listed:http://10.0.0.1:8080/mcp', 'listed', 'http://10.0.0.1:8080/mcp', null],
      ['listed:http://10.0.0.2:8080/mcp', 'listed', 'http://10.0.0.2:8080/mcp', null],
      ['dns:10.1.0.1', 'dns', 'https://api.example.com/mcp', '10.1.0.1'],
      ['dns:2001:db8::1', 'dns', 'https://api.example.com/mcp', '2001:db8::1'],
    ]);
    expect(plan.nodes[2]?.target).toEqual({
      url: 'https://api.example.com/mcp',
      connectAddress: '10.1.0.1',
      headers: { 'X-Key': 'k' },
      allowLegacy: true,
      auditLegacy: false,
      publicUrl: 'https://api.example.com/mcp',
    });
    // Attribution belongs to samples through the balancer only.
    expect(plan.nodes[0]?.target.attributionHeader).toBeUndefined();
    expect(plan.samples).toHaveLength(3);
    expect(plan.samples[0]).toMatchObject({
      url: 'https://api.example.com/mcp',
      attributionHeader: 'x-served-by',
    });
    expect(plan.samples[0]?.connectAddress).toBeUndefined();
    expect(plan.headerProblem).toBeNull();
  });

  it('the probe options follow the balancer: timeouts and legacy revision set', () => {
    const plan = planCycle(
      settings({ timeoutMs: 700, legacyProbeTimeoutMs: 400, legacyVersions: ['2025-06-18'] }),
      null,
      {},
    );
    expect(plan.options).toMatchObject({
      timeoutMs: 700,
      legacyProbeTimeoutMs: 400,
      legacyVersions: ['2025-06-18'],
      modernVersions: ['2026-07-28'],
    });
  });

  it('names every missing header variable', () => {
    const plan = planCycle(settings({ headers: { A: 'env:ONE', B: 'env:TWO' } }), null, {});
    expect(plan.headerProblem).toBe('header_env_missing:ONE,TWO');
  });
});

describe('helpers', () => {
  it('unavailableVerdict is a complete unavailable verdict', () => {
    expect(unavailableVerdict('http://x/', 'dns_failed', 42, '10.0.0.1')).toMatchObject({
      url: 'http://x/',
      verdict: 'unavailable',
      reason: 'dns_failed',
      servedEras: 'unknown',
      supported: [],
      evidence: [],
      probedAt: 42,
      address: '10.0.0.1',
    });
  });

  it.each([
    ['http://fleet.example:80/mcp', 'fleet.example'],
    ['http://[::1]:9000/mcp', '::1'],
    ['https://127.0.0.2/mcp', '127.0.0.2'],
  ])('hostOf(%s) = %s', (url, host) => {
    expect(hostOf(url)).toBe(host);
  });
});
