// An HTTP server in host.yaml behind OAuth: with client credentials (secret from env) the host starts it as
// modern and lists its tools with the same token; without them it is auth-gated; an unset secret is a file error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { HttpHostPeer } from '@/lib/host-check/peer';
import { loadHostConfig } from '@/lib/host-check/config';
import { runHostCheck } from '@/lib/host-check/session';
import { closeSharedProbeAgents } from '@/lib/probe/agent';
import {
  startAuthorizationServer,
  startOAuthPeer,
  type RunningAuthorizationServer,
  type RunningOAuthPeer,
} from '@/lib/peers/oauth';
import { makeTempDir } from './fixtures';

const tmp = makeTempDir('host-oauth');
const SECRET = 'host-check-secret-31';
let as: RunningAuthorizationServer | null = null;
let peer: RunningOAuthPeer | null = null;
let bare: RunningOAuthPeer | null = null;

beforeAll(async () => {
  as = await startAuthorizationServer({ clientId: 'host', clientSecret: SECRET, scope: 'mcp:read' });
  // Two servers: the host's era cache is per origin.
  [peer, bare] = await Promise.all([
    startOAuthPeer({ issuer: as.issuer }),
    startOAuthPeer({ issuer: as.issuer }),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([peer?.stop(), bare?.stop()]);
  await as?.stop();
  await closeSharedProbeAgents();
  tmp.remove();
  delete process.env.HOST_OAUTH_SECRET;
});

const auth = {
  type: 'oauth-client-credentials',
  clientId: 'host',
  clientSecret: 'env:HOST_OAUTH_SECRET',
  scope: 'mcp:read',
};

describe('an OAuth-guarded HTTP server in host.yaml', () => {
  it('starts modern with client credentials and lists its tools; without them it is auth-gated', async () => {
    if (!peer || !bare) throw new Error('peers did not start');
    process.env.HOST_OAUTH_SECRET = SECRET;
    const file = tmp.write(
      'oauth.yaml',
      stringify({
        collisionPolicy: 'prefix',
        servers: [
          { name: 'guarded', url: peer.url, auth: { ...auth, issuer: as?.issuer } },
          { name: 'guarded-bare', url: bare.url, retry: { attempts: 1 } },
        ],
      }),
    );
    const report = await runHostCheck(await loadHostConfig(file));
    expect(report.servers.map((s) => [s.name, s.era, s.reason, s.tools])).toEqual([
      ['guarded', 'modern', 'discover_result', ['echo']],
      ['guarded-bare', 'unavailable', 'auth_required', []],
    ]);
    expect(JSON.stringify(report)).not.toContain(SECRET);
  });

  it('an entry without credentials on the same address as an OAuth entry is auth-gated, not given its era', async () => {
    if (!peer) throw new Error('peers did not start');
    process.env.HOST_OAUTH_SECRET = SECRET;
    const file = tmp.write(
      'shared.yaml',
      stringify({
        collisionPolicy: 'prefix',
        servers: [
          { name: 'guarded', url: peer.url, auth: { ...auth, issuer: as?.issuer } },
          { name: 'same-address-bare', url: peer.url, retry: { attempts: 1 } },
        ],
      }),
    );
    const config = await loadHostConfig(file);
    // One address, two credentials: two era-cache peers, so the era learned with the token is not the bare one's.
    const [withToken, without] = config.servers.map((c) =>
      c.kind === 'http' ? new HttpHostPeer(c).key : '',
    );
    expect(withToken).not.toBe(without);
    expect(withToken).not.toContain(SECRET);
    const report = await runHostCheck(config);
    expect(report.servers.map((s) => [s.name, s.era, s.reason])).toEqual([
      ['guarded', 'modern', 'discover_result'],
      ['same-address-bare', 'unavailable', 'auth_required'],
    ]);
  });

  it('an unset secret variable is a file error naming the field', async () => {
    delete process.env.HOST_OAUTH_SECRET;
    const file = tmp.write(
      'unset.yaml',
      stringify({
        collisionPolicy: 'prefix',
        servers: [{ name: 'guarded', url: 'http://127.0.0.1:9/mcp', auth: { ...auth, issuer: as?.issuer } }],
      }),
    );
    await expect(loadHostConfig(file)).rejects.toThrow(
      /servers\[0\]\.auth\.clientSecret: environment variable HOST_OAUTH_SECRET is not set/,
    );
  });
});
