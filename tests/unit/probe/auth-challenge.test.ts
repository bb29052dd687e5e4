import { describe, expect, it } from 'vitest';
import { challengeEvidence, parseWwwAuthenticate } from '@/lib/probe/auth-challenge';
import { metadataCandidates, resourceMatches } from '@/lib/probe/protected-resource';

describe('parseWwwAuthenticate', () => {
  it.each([
    [
      'the v2 SDK server without a token',
      'Bearer error="invalid_token", error_description="Missing Authorization header", scope="mcp:read", resource_metadata="http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp"',
      [
        {
          scheme: 'bearer',
          token68: null,
          params: {
            error: 'invalid_token',
            error_description: 'Missing Authorization header',
            scope: 'mcp:read',
            resource_metadata: 'http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp',
          },
        },
      ],
    ],
    ['a bare scheme', 'Bearer', [{ scheme: 'bearer', token68: null, params: {} }]],
    [
      'two challenges, token68 first',
      'Negotiate abc123==, Bearer realm="mcp", scope=read',
      [
        { scheme: 'negotiate', token68: 'abc123==', params: {} },
        { scheme: 'bearer', token68: null, params: { realm: 'mcp', scope: 'read' } },
      ],
    ],
    [
      'escapes and odd spacing',
      'Basic realm="a \\"quoted\\" realm" , charset=UTF-8',
      [{ scheme: 'basic', token68: null, params: { realm: 'a "quoted" realm', charset: 'UTF-8' } }],
    ],
    [
      'an unterminated quote yields what it can',
      'Bearer realm="open',
      [{ scheme: 'bearer', token68: null, params: { realm: '' } }],
    ],
  ])('%s', (_name, header, expected) => {
    expect(parseWwwAuthenticate(header)).toEqual(expected);
  });

  it('prefers the Bearer challenge and keeps the other schemes', () => {
    expect(
      challengeEvidence('Basic realm="x", Bearer error="insufficient_scope", scope="mcp:write"'),
    ).toEqual({
      scheme: 'bearer',
      resourceMetadata: null,
      scope: 'mcp:write',
      error: 'insufficient_scope',
      errorDescription: null,
      realm: null,
      otherSchemes: ['basic'],
    });
  });

  it.each([[null], [''], ['   '], ['"not a scheme"']])('%j is no challenge', (header) => {
    expect(challengeEvidence(header)).toBeNull();
  });
});

describe('protected-resource metadata candidates', () => {
  it('asks the challenge URL first, then the path-inserted well-known URL, then the root', () => {
    expect(
      metadataCandidates('https://mcp.example.com/tenant/mcp?x=1', 'https://meta.example.com/prm'),
    ).toEqual([
      { source: 'challenge', url: 'https://meta.example.com/prm' },
      { source: 'path', url: 'https://mcp.example.com/.well-known/oauth-protected-resource/tenant/mcp?x=1' },
      { source: 'root', url: 'https://mcp.example.com/.well-known/oauth-protected-resource' },
    ]);
  });

  it('asks each URL once, and ignores a challenge URL that is not http(s)', () => {
    expect(metadataCandidates('https://mcp.example.com/', 'file:///etc/passwd')).toEqual([
      { source: 'root', url: 'https://mcp.example.com/.well-known/oauth-protected-resource' },
    ]);
    expect(
      metadataCandidates(
        'https://mcp.example.com/mcp',
        'https://mcp.example.com/.well-known/oauth-protected-resource/mcp',
      ).map((c) => c.source),
    ).toEqual(['challenge', 'root']);
  });

  it.each([
    ['https://a.example/mcp', ['https://a.example/mcp'], true],
    ['https://a.example/mcp/', ['https://a.example/mcp'], true],
    ['https://a.example/mcp#frag', ['https://a.example/mcp'], true],
    ['https://a.example/other', ['https://a.example/mcp'], false],
    ['https://evil.example/mcp', ['https://a.example/mcp', 'https://lb.example/mcp'], false],
    ['https://lb.example/mcp', ['https://a.example/mcp', 'https://lb.example/mcp'], true],
    ['not a url', ['https://a.example/mcp'], false],
  ])('resource %s against %j: %s', (resource, accepted, expected) => {
    expect(resourceMatches(resource, accepted)).toBe(expected);
  });
});
