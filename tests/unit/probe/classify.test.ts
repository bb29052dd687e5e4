import { describe, expect, it } from 'vitest';
import {
  checkLegacyInitialize,
  classifyDiscover,
  deriveServedEras,
  isHandshakeEra,
  newestMutual,
  settleOutcome,
  sortRevisions,
  type BodyReading,
} from '@/lib/probe/classify';
import { outcomeOfError } from '@/lib/probe/http-transport';

const ok = (id: unknown, result: unknown = {}) => ({ jsonrpc: '2.0', id, result });
const err = (id: unknown, code: number) => ({ jsonrpc: '2.0', id, error: { code, message: 'm' } });
const json = (value: unknown): BodyReading => ({ kind: 'json', value });

describe('settleOutcome', () => {
  it.each<[string, number, BodyReading, string]>([
    ['our result', 200, json(ok('a')), 'result'],
    ['our error in a 400', 400, json(err('a', -32022)), 'rpc_error'],
    ['a null-id error (legacy SDKs)', 400, json(err(null, -32000)), 'rpc_error'],
    ['-32601 in a 404', 404, json(err('a', -32601)), 'rpc_error'],
    ['another id', 200, json(ok('b')), 'wrong_id'],
    ['a null-id result', 200, json(ok(null)), 'wrong_id'],
    ['numeric id when we sent a string', 200, json(ok(1)), 'wrong_id'],
    ['no jsonrpc member', 200, json({ id: 'a', result: {} }), 'not_jsonrpc'],
    ['an array (batch)', 200, json([ok('a')]), 'not_jsonrpc'],
    [
      'error without a numeric code',
      200,
      json({ jsonrpc: '2.0', id: 'a', error: { code: 'x' } }),
      'not_jsonrpc',
    ],
    ['non-JSON-RPC JSON in a 500', 500, json({ error: 'boom' }), 'http_5xx'],
    ['non-JSON-RPC JSON in a 404', 404, json({ error: 'nope' }), 'http_4xx'],
    ['empty 200', 200, { kind: 'empty' }, 'empty'],
    ['empty 202', 202, { kind: 'empty' }, 'empty'],
    ['empty 400', 400, { kind: 'empty' }, 'http_4xx'],
    ['HTML 502', 502, { kind: 'other' }, 'http_5xx'],
    ['HTML 200', 200, { kind: 'other' }, 'unsupported_content_type'],
    ['broken JSON 200', 200, { kind: 'invalid_json', detail: 'x' }, 'invalid_json'],
    ['redirect even with a body', 302, json(ok('a')), 'redirect_refused'],
    ['401 even with a JSON-RPC body', 401, json(err('a', -32001)), 'auth_required'],
    ['403', 403, { kind: 'other' }, 'auth_required'],
  ])('%s → %s', (_label, status, reading, outcome) => {
    expect(settleOutcome(status, reading, 'a').outcome).toBe(outcome);
  });

  it('keeps the wrong-id message so the legacy checks can name id_match', () => {
    const settled = settleOutcome(200, json(ok('b')), 'a');
    expect(settled.message).toEqual(ok('b'));
    expect(settled.detail).toBe('response id "b"');
  });
});

describe('classifyDiscover', () => {
  const valid = {
    supportedVersions: ['2026-07-28'],
    capabilities: {},
    ttlMs: 5,
    cacheScope: 'public',
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'n', version: 'v' } },
  };
  it('reads a DiscoverResult: versions, cache hint and serverInfo from _meta', () => {
    expect(classifyDiscover('result', ok('a', valid))).toEqual({
      kind: 'discover',
      facts: {
        supportedVersions: ['2026-07-28'],
        cache: { ttlMs: 5, cacheScope: 'public' },
        serverInfo: { name: 'n', version: 'v' },
      },
    });
  });

  it.each<[string, unknown, string]>([
    ['no supportedVersions', { ...valid, supportedVersions: undefined }, 'supportedVersions'],
    ['supportedVersions not strings', { ...valid, supportedVersions: [20260728] }, 'supportedVersions'],
    ['no capabilities', { ...valid, capabilities: null }, 'capabilities'],
    ['a string result', 'ok', 'not an object'],
  ])('a result with %s is ambiguous', (_label, result, detail) => {
    const c = classifyDiscover('result', ok('a', result));
    expect(c.kind).toBe('ambiguous');
    expect(c.kind === 'ambiguous' && c.detail).toContain(detail);
  });

  it('tolerates a missing cache hint and a top-level serverInfo is not identity', () => {
    const c = classifyDiscover(
      'result',
      ok('a', { supportedVersions: [], capabilities: {}, serverInfo: valid._meta }),
    );
    expect(c).toEqual({ kind: 'discover', facts: { supportedVersions: [], cache: null, serverInfo: null } });
  });

  it.each<[number, unknown, string[] | null]>([
    [-32022, { supported: ['2026-07-28'], requested: '2099-01-01' }, ['2026-07-28']],
    [-32022, { requested: 'x' }, null],
    [-32022, { supported: 'all' }, null],
    [-32020, undefined, null],
    [-32021, { requiredCapabilities: {} }, null],
  ])('%i is a modern error', (code, data, supported) => {
    const message = { jsonrpc: '2.0', id: 'a', error: { code, message: 'm', data } };
    expect(classifyDiscover('rpc_error', message)).toEqual({ kind: 'modern_error', code, supported });
  });

  it.each<[string, Parameters<typeof classifyDiscover>[0], Record<string, unknown> | null, boolean]>([
    ['-32601', 'rpc_error', err('a', -32601), true],
    ['legacy -32000', 'rpc_error', err(null, -32000), true],
    ['pre-GA -32001', 'rpc_error', err('a', -32001), true],
    ['wrong id', 'wrong_id', ok('b'), true],
    ['timeout', 'timeout', null, false],
    ['empty', 'empty', null, false],
    ['5xx', 'http_5xx', null, false],
  ])('%s is ambiguous', (_label, outcome, message, protocolAnswer) => {
    expect(classifyDiscover(outcome, message)).toMatchObject({ kind: 'ambiguous', protocolAnswer });
  });
});

describe('checkLegacyInitialize', () => {
  const LEGACY = ['2025-11-25', '2025-06-18'];
  const good = { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } };
  it('passes all five checks on a valid result', () => {
    const e = checkLegacyInitialize(ok('a', good), 'a', LEGACY);
    expect(e.failed).toBeNull();
    expect(e.checks.map((c) => [c.name, c.passed])).toEqual([
      ['id_match', true],
      ['single_result', true],
      ['protocol_version', true],
      ['capabilities_object', true],
      ['server_info', true],
    ]);
    expect(e.serverInfo).toEqual({ name: 's', version: '1' });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['wrong id', ok('b', good), 'id_match'],
    ['not JSON-RPC 2.0', { jsonrpc: '1.0', id: 'a', result: good }, 'id_match'],
    ['an error', err('a', -32602), 'single_result'],
    ['result and error', { ...ok('a', good), error: { code: 1, message: 'x' } }, 'single_result'],
    ['version outside the set', ok('a', { ...good, protocolVersion: '2024-11-05' }), 'protocol_version'],
    ['a modern version', ok('a', { ...good, protocolVersion: '2026-07-28' }), 'protocol_version'],
    ['capabilities missing', ok('a', { ...good, capabilities: undefined }), 'capabilities_object'],
    ['capabilities an array', ok('a', { ...good, capabilities: [] }), 'capabilities_object'],
    ['serverInfo missing', ok('a', { ...good, serverInfo: undefined }), 'server_info'],
    ['empty name', ok('a', { ...good, serverInfo: { name: '', version: '1' } }), 'server_info'],
    ['numeric version', ok('a', { ...good, serverInfo: { name: 's', version: 1 } }), 'server_info'],
  ])('%s fails %s first', (_label, message, failed) => {
    const e = checkLegacyInitialize(message, 'a', LEGACY);
    expect(e.failed).toBe(failed);
    expect(e.checks.find((c) => c.name === failed)?.detail).toBeTruthy();
  });
});

describe('revisions', () => {
  it.each([
    ['2025-11-25', true],
    ['2024-10-07', true],
    ['2026-07-28', false],
    ['2099-01-01', false],
    ['draft', false],
  ])('isHandshakeEra(%s) = %s', (revision, handshake) => {
    expect(isHandshakeEra(revision)).toBe(handshake);
  });

  it.each<[string[], string]>([
    [[], 'unknown'],
    [['2026-07-28'], 'modern-only'],
    [['2025-11-25', '2024-11-05'], 'legacy-only'],
    [['2026-07-28', '2025-11-25'], 'dual-era'],
  ])('deriveServedEras(%j) = %s', (supported, era) => {
    expect(deriveServedEras(supported)).toBe(era);
  });

  it('sorts newest first, unique, undated last', () => {
    expect(sortRevisions(['2025-06-18', 'draft', '2026-07-28', '2025-06-18', '2099-01-01'])).toEqual([
      '2099-01-01',
      '2026-07-28',
      '2025-06-18',
      'draft',
    ]);
  });

  it.each<[string[], string[], string | null]>([
    [['2026-07-28', '2027-03-01'], ['2027-03-01', '2026-07-28'], '2027-03-01'],
    [['2026-07-28'], ['2027-03-01', '2026-07-28'], '2026-07-28'],
    [['2030-01-01'], ['2026-07-28'], null],
    [[], ['2026-07-28'], null],
  ])('newestMutual(%j, %j) = %s', (theirs, ours, mutual) => {
    expect(newestMutual(theirs, ours)).toBe(mutual);
  });
});

describe('outcomeOfError', () => {
  it.each<[unknown, string]>([
    [Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), 'refused'],
    [Object.assign(new Error('x'), { code: 'ECONNRESET' }), 'reset'],
    [Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }), 'closed'],
    [Object.assign(new Error('x'), { code: 'ENOTFOUND' }), 'dns_failed'],
    [Object.assign(new Error('x'), { code: 'UND_ERR_CONNECT_TIMEOUT' }), 'timeout'],
    [Object.assign(new Error('x'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }), 'tls_untrusted'],
    [Object.assign(new Error('x'), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }), 'tls_untrusted'],
    [Object.assign(new Error('x'), { code: 'CERT_HAS_EXPIRED' }), 'tls_expired'],
    [Object.assign(new Error('x'), { code: 'ERR_TLS_CERT_ALTNAME_INVALID' }), 'tls_name_mismatch'],
    [Object.assign(new Error('x'), { code: 'ERR_SSL_WRONG_VERSION_NUMBER' }), 'tls_error'],
    [Object.assign(new Error('x'), { code: 'ERAWATCH_EGRESS_REFUSED' }), 'egress_refused'],
    [Object.assign(new Error('fetch failed'), { cause: { code: 'ECONNREFUSED' } }), 'refused'],
    [new Error('something else'), 'network_error'],
    ['a string', 'network_error'],
  ])('%s → %s', (error, outcome) => {
    expect(outcomeOfError(error).outcome).toBe(outcome);
  });
});
