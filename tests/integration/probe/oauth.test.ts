// Auth-gated probing against a real OAuth stack on loopback: oidc-provider (client credentials, resource
// indicators, JWT access tokens) in front of a real v2 SDK server that checks the bearer JWT against the
// provider's JWKS with jose and publishes its protected-resource metadata.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBalancer } from '@/lib/balancers';
import { listNodes } from '@/db/queries/nodes';
import { runOneCycle } from '@/tests/support/cycle';
import {
  startAuthorizationServer,
  startOAuthPeer,
  type RunningAuthorizationServer,
  type RunningOAuthPeer,
} from '@/lib/peers/oauth';
import { DEFAULT_PROBE_OPTIONS, probeNode, type ProbeTarget, type Verdict } from '@/lib/probe';
import { OAuthTokenCache } from '@/lib/probe/oauth';
import { tempStore } from '../poller/support';

process.env.ERAWATCH_ALLOW_LOOPBACK = '1';

const SECRET = 'right-secret-4f1c';
const egress = { allowLoopback: true, allowPrivate: true };
const options = { ...DEFAULT_PROBE_OPTIONS, timeoutMs: 4_000, legacyProbeTimeoutMs: 3_000 };
const BIN = path.resolve(__dirname, '../../../bin/erawatch.mjs');

let as: RunningAuthorizationServer;
let shortAs: RunningAuthorizationServer;
let peer: RunningOAuthPeer;
let shortPeer: RunningOAuthPeer;
let mismatched: RunningOAuthPeer;
let bare: RunningOAuthPeer;
const env = await tempStore('oauth');

beforeAll(async () => {
  [as, shortAs] = await Promise.all([
    startAuthorizationServer({ clientId: 'erawatch', clientSecret: SECRET, scope: 'mcp:read' }),
    startAuthorizationServer({
      clientId: 'erawatch',
      clientSecret: SECRET,
      scope: 'mcp:read',
      ttlSeconds: 5,
    }),
  ]);
  [peer, shortPeer, mismatched, bare] = await Promise.all([
    startOAuthPeer({ issuer: as.issuer }),
    startOAuthPeer({ issuer: shortAs.issuer }),
    startOAuthPeer({ issuer: as.issuer, metadataResourcePath: '/elsewhere' }),
    startOAuthPeer({ issuer: as.issuer, noChallenge: true }),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([peer, shortPeer, mismatched, bare, as, shortAs].map((p) => p?.stop()));
  await env.cleanup();
});

const creds = (over: Partial<NonNullable<ProbeTarget['oauth']>> = {}) => ({
  clientId: 'erawatch',
  clientSecret: SECRET,
  scope: 'mcp:read',
  issuer: as.issuer,
  ...over,
});

function probe(target: ProbeTarget, tokens = new OAuthTokenCache()): Promise<Verdict> {
  return probeNode(target, options, { egress, tokens });
}

describe('a node behind OAuth, probed without a credential', () => {
  it('is auth-gated with the challenge and the protected-resource metadata, and gets no initialize even when allowlisted', async () => {
    const before = (await peer.decisions()).length;
    const v = await probe({ url: peer.url, allowLegacy: true, auditLegacy: true });
    expect(v).toMatchObject({ verdict: 'unavailable', reason: 'auth_required', initializeSent: false });
    expect(v.evidence.map((e) => [e.step, e.httpStatus, e.outcome])).toEqual([
      ['discover', 401, 'auth_required'],
    ]);
    expect(v.auth).toMatchObject({
      credential: 'none',
      httpStatus: 401,
      challenge: {
        scheme: 'bearer',
        error: 'invalid_token',
        scope: 'mcp:read',
        resourceMetadata: peer.url.replace('/mcp', '/.well-known/oauth-protected-resource/mcp'),
      },
      metadata: {
        source: 'challenge',
        resource: peer.url,
        resourceMatches: true,
        trusted: true,
        authorizationServers: [as.issuer],
        scopesSupported: ['mcp:read'],
      },
    });
    expect(v.auth?.metadataAttempts).toHaveLength(1);
    // The server saw exactly the one discover: no initialize, no audit after a refusal.
    expect((await peer.decisions()).slice(before)).toEqual([{ ok: false, reason: 'missing' }]);
  });

  it('with a static credential it rejects is auth_failed', async () => {
    const v = await probe({ url: peer.url, headers: { Authorization: 'Bearer not-a-jwt' } });
    expect(v).toMatchObject({ verdict: 'unavailable', reason: 'auth_failed' });
    expect(v.auth).toMatchObject({ credential: 'header', challenge: { error: 'invalid_token' } });
  });

  it('flags metadata whose resource is not the URL probed, and does not trust it', async () => {
    const v = await probe({ url: mismatched.url });
    expect(v.reason).toBe('auth_required');
    expect(v.auth?.metadata).toMatchObject({
      source: 'challenge',
      resource: mismatched.url.replace('/mcp', '/elsewhere'),
      resourceMatches: false,
      trusted: false,
      authorizationServers: [as.issuer],
    });
    expect(v.auth?.metadataAttempts[0]?.detail).toMatch(/is not the URL probed/);
    // The untrusted metadata leads nowhere: the token endpoint comes from the credential's issuer, and a
    // credential bound to none is never sent.
    const withCreds = await probe({ url: mismatched.url, oauth: creds() });
    expect(withCreds.verdict).toBe('modern');
    expect(withCreds.auth?.token).toMatchObject({ issuer: as.issuer, tokenEndpoint: `${as.issuer}/token` });
    const unbound = await probe({ url: mismatched.url, oauth: creds({ issuer: undefined }) });
    expect(unbound.reason).toBe('oauth_token_failed: no_issuer');
  });

  it('answers a bare 401 with auth_required and "no challenge", still finding the well-known metadata', async () => {
    const v = await probe({ url: bare.url, allowLegacy: true });
    expect(v).toMatchObject({ verdict: 'unavailable', reason: 'auth_required', initializeSent: false });
    expect(v.auth).toMatchObject({ challenge: null, detail: 'no challenge' });
    expect(v.evidence[0]?.detail).toBe('no challenge');
    expect(v.auth?.metadata).toMatchObject({ source: 'path', resourceMatches: true });
  });
});

describe('OAuth client credentials', () => {
  it('a wrong secret is oauth_token_failed: invalid_client, and the node is never asked', async () => {
    const before = (await peer.decisions()).length;
    const v = await probe({ url: peer.url, oauth: creds({ clientSecret: 'wrong' }) });
    expect(v).toMatchObject({ verdict: 'unavailable', reason: 'oauth_token_failed: invalid_client' });
    expect(v.evidence).toEqual([]);
    expect(v.auth?.token).toMatchObject({ error: 'invalid_client', endpointSource: 'discovered' });
    expect(JSON.stringify(v)).not.toContain('wrong');
    expect((await peer.decisions()).length).toBe(before);
    expect((await as.issued()).some((i) => i.error === 'invalid_client')).toBe(true);
  });

  it('the right secret gives modern; concurrent probes share one token, later ones reuse it', async () => {
    const tokens = new OAuthTokenCache();
    const issuedBefore = (await as.issued()).length;
    const first = await Promise.all([1, 2, 3, 4].map(() => probe({ url: peer.url, oauth: creds() }, tokens)));
    for (const v of first) expect(v).toMatchObject({ verdict: 'modern', reason: 'discover_result' });
    expect(first[0]?.auth?.token).toMatchObject({
      error: null,
      refreshed: false,
      endpointSource: 'discovered',
      tokenEndpoint: `${as.issuer}/token`,
    });
    const again = await probe({ url: peer.url, oauth: creds() }, tokens);
    expect(again.verdict).toBe('modern');
    expect((await as.issued()).length - issuedBefore).toBe(1);
    expect(tokens.requests).toBe(1);
  });

  it('a configured tokenUrl skips discovery', async () => {
    const v = await probe({
      url: peer.url,
      oauth: creds({ tokenUrl: `${as.issuer}/token`, issuer: undefined }),
    });
    expect(v.verdict).toBe('modern');
    expect(v.auth?.token).toMatchObject({ endpointSource: 'configured' });
    expect(v.auth?.metadataAttempts).toEqual([]);
  });

  it('a token that expires mid-run draws a 401 and is refreshed once', async () => {
    // The cache's clock stands still, so it keeps offering the first token after the server's has expired it.
    const issuedAt = Date.now();
    const tokens = new OAuthTokenCache({ now: () => issuedAt });
    const first = await probe({ url: shortPeer.url, oauth: creds({ issuer: shortAs.issuer }) }, tokens);
    expect(first.verdict).toBe('modern');
    // Wait for the event: the server rejecting the cached token as expired (bounded, one probe per step).
    let refreshed: Verdict | null = null;
    for (let i = 0; i < 120 && !refreshed; i++) {
      const v = await probe({ url: shortPeer.url, oauth: creds({ issuer: shortAs.issuer }) }, tokens);
      if (v.auth?.token?.refreshed) refreshed = v;
      else await new Promise((r) => setTimeout(r, 250));
    }
    expect(refreshed).not.toBeNull();
    expect(refreshed?.verdict).toBe('modern');
    expect(refreshed?.evidence.map((e) => [e.step, e.httpStatus])).toEqual([
      ['discover', 401],
      ['discover-reauth', 200],
    ]);
    const decisions = await shortPeer.decisions();
    expect(decisions.filter((d) => d.reason === 'expired')).toHaveLength(1);
    expect(decisions.at(-1)).toEqual({ ok: true });
    expect(tokens.requests).toBe(2);
  }, 60_000);
});

describe('the poller and the CLI', () => {
  it('a balancer without credentials is auth-gated apart from down, and the gate says it cannot judge', async () => {
    const b = await createBalancer(env.store, {
      name: 'guarded',
      publicUrl: peer.url,
      nodeUrls: [peer.url],
      samplesPerCycle: 1,
      intervalMs: 20_000,
      timeoutMs: 4_000,
    });
    const result = await runOneCycle(env.store, b.id);
    expect(result.analysis.displayStatus).toBe('auth-gated');
    expect(result.analysis.degradedNodes).toEqual([
      expect.objectContaining({ reason: 'auth_required', authGated: true }),
    ]);
    expect(result.analysis.gates[0]?.reasons).toEqual([
      expect.stringMatching(/^cannot judge 1 auth-gated node/),
    ]);
    const [node] = await listNodes(env.store, b.id);
    expect(node?.state?.availability).toBe('auth-gated');
    expect(node?.state?.verdict.auth?.metadata?.authorizationServers).toEqual([as.issuer]);
  });

  it('a balancer with client credentials (secret from env) is modern, and a missing variable is named', async () => {
    process.env.ERAWATCH_TEST_OAUTH_SECRET = SECRET;
    const b = await createBalancer(env.store, {
      name: 'guarded-with-token',
      publicUrl: peer.url,
      nodeUrls: [peer.url],
      samplesPerCycle: 0,
      intervalMs: 20_000,
      timeoutMs: 4_000,
      auth: {
        type: 'oauth-client-credentials',
        clientId: 'erawatch',
        clientSecret: 'env:ERAWATCH_TEST_OAUTH_SECRET',
        scope: 'mcp:read',
        issuer: as.issuer,
      },
    });
    const ok = await runOneCycle(env.store, b.id);
    expect(ok.analysis.degradedNodes).toEqual([]);
    expect(ok.analysis.displayStatus).toBe('uniform');
    expect((await listNodes(env.store, b.id))[0]?.state).toMatchObject({
      clientEra: 'modern',
      availability: 'available',
    });
    delete process.env.ERAWATCH_TEST_OAUTH_SECRET;
    const missing = await runOneCycle(env.store, b.id);
    expect(missing.analysis.degradedNodes[0]?.reason).toBe(
      'oauth_secret_env_missing:ERAWATCH_TEST_OAUTH_SECRET',
    );
  });

  it('erawatch probe --oauth-* reads the secret from the named variable and prints the evidence', async () => {
    const run = (args: string[], extraEnv: Record<string, string>) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          process.execPath,
          [BIN, 'probe', ...args],
          { timeout: 25_000, env: { ...process.env, ...extraEnv } },
          (err, stdout, stderr) =>
            resolve({ code: err && typeof err.code === 'number' ? err.code : err ? -1 : 0, stdout, stderr }),
        );
      });
    const flags = [
      '--oauth-client-id',
      'erawatch',
      '--oauth-client-secret-env',
      'MCP_SECRET',
      '--oauth-scope',
      'mcp:read',
      '--oauth-issuer',
      as.issuer,
    ];
    const good = await run([peer.url, '--json', ...flags], { MCP_SECRET: SECRET });
    expect(good.code).toBe(0);
    expect(JSON.parse(good.stdout)).toMatchObject({ verdict: 'modern', auth: { credential: 'oauth' } });
    const bad = await run([peer.url, '--json', ...flags], { MCP_SECRET: 'wrong-secret-x' });
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ reason: 'oauth_token_failed: invalid_client' });
    expect(bad.stdout).not.toContain('wrong-secret-x');
    const gated = await run([peer.url, '--json'], {});
    expect(JSON.parse(gated.stdout)).toMatchObject({
      reason: 'auth_required',
      auth: { challenge: { scheme: 'bearer' }, metadata: { authorizationServers: [as.issuer] } },
    });
    const text = await run([peer.url], {});
    expect(text.stdout).toContain(`authorization servers: ${as.issuer}`);
  }, 60_000);

  it.each([
    [['--oauth-client-id', 'x', '--oauth-scope', 's'], /needs --oauth-client-secret-env NAME/],
    [['--oauth-client-id', 'x', '--oauth-client-secret-env', 'HOME'], /needs --oauth-issuer URL/],
    [
      ['--oauth-client-id', 'x', '--oauth-client-secret-env', 'UNSET_VAR_9', '--oauth-scope', 's'],
      /UNSET_VAR_9 is not set/,
    ],
    [
      ['--oauth-client-id', 'x', '--oauth-client-secret-env', 'bad-name', '--oauth-scope', 's'],
      /takes a variable name/,
    ],
    [
      [
        '--oauth-client-id',
        'x',
        '--oauth-client-secret-env',
        'HOME',
        '--oauth-scope',
        's',
        '--oauth-token-url',
        'ftp://x',
      ],
      /--oauth-token-url: scheme ftp:/,
    ],
  ])('bad OAuth flags %j exit 2 with one line', async (args, message) => {
    const res = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [BIN, 'probe', 'http://127.0.0.1:1/mcp', ...args],
        { timeout: 25_000 },
        (err, _o, stderr) => resolve({ code: err && typeof err.code === 'number' ? err.code : 0, stderr }),
      );
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(message);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
  });
});
