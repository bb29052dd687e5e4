import { describe, expect, it } from 'vitest';
import { CreateBalancerInput } from '@/lib/schemas/balancer';
import { unavailableVerdict } from '@/lib/probe/types';
import { hostOf, planCycle, resolveCaBundle, resolveHeaders } from '@/lib/poller/targets';

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
      attributionHeader: 'x-served-by',
    });
    // Every probe reads the attribution header: a sample's value names its node, a node's own is its name.
    expect(plan.nodes[0]?.target.attributionHeader).toBe('x-served-by');
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

describe('resolveCaBundle', () => {
  const PEM = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';
  const files: Record<string, string> = { '/etc/erawatch/fleet-ca.pem': PEM };
  const read = (p: string): string | null => files[p] ?? null;

  it.each([
    ['none: the system roots', null, {}, { pem: null, problem: null }],
    ['PEM as given', PEM, {}, { pem: PEM, problem: null }],
    ['a file', 'file:/etc/erawatch/fleet-ca.pem', {}, { pem: PEM, problem: null }],
    [
      'a file that cannot be read',
      'file:/nowhere.pem',
      {},
      { pem: null, problem: 'tls_ca_file_unreadable:/nowhere.pem' },
    ],
    ['a variable', 'env:FLEET_CA', { FLEET_CA: PEM }, { pem: PEM, problem: null }],
    ['an unset variable', 'env:FLEET_CA', {}, { pem: null, problem: 'tls_ca_env_missing:FLEET_CA' }],
  ])('%s', (_label, value, env, expected) => {
    expect(resolveCaBundle(value, env, read)).toEqual(expected);
  });

  it('reaches every target of the cycle, samples included; an unreadable one skips the cycle with its reason', () => {
    const plan = planCycle(
      settings({ nodeUrls: ['https://10.0.0.1/mcp'], samplesPerCycle: 1, tlsCa: 'env:FLEET_CA' }),
      null,
      { FLEET_CA: PEM },
    );
    expect(plan.nodes[0]?.target.tlsCa).toBe(PEM);
    expect(plan.samples[0]?.tlsCa).toBe(PEM);
    expect(plan.headerProblem).toBeNull();
    const missing = planCycle(settings({ tlsCa: 'env:FLEET_CA' }), null, {});
    expect(missing.headerProblem).toBe('tls_ca_env_missing:FLEET_CA');
  });
});
