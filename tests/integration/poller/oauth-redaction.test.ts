// A secret echoed by an authorization server is stored and printed nowhere, on both engines: the node
// rows the API serves and `erawatch probe --json`.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createBalancer } from '@/lib/balancers';
import { listNodes } from '@/db/queries/nodes';
import { runOneCycle } from '@/tests/support/cycle';
import { closeSharedProbeAgents } from '@/lib/probe';
import { startRoutes, type RouteServer } from '@/tests/support/oauth-routes';
import {
  authorizationServer,
  echoCredential,
  resourceServer,
  secretFormsOf,
} from '@/tests/support/oauth-scene';
import { tempStore } from './support';

process.env.ERAWATCH_ALLOW_LOOPBACK = '1';

const BIN = path.resolve(__dirname, '../../../bin/erawatch.mjs');
const SECRET = 'sé cret/p@ss+w~rd:42';
const servers: RouteServer[] = [];
async function routes(...args: Parameters<typeof startRoutes>): Promise<RouteServer> {
  const s = await startRoutes(...args);
  servers.push(s);
  return s;
}
const env = await tempStore('oauth-redaction');
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await closeSharedProbeAgents();
  await env.cleanup();
});

function expectNoSecret(text: string): void {
  for (const form of secretFormsOf('erawatch', SECRET)) expect(text).not.toContain(form);
}

describe('an authorization server echoing the credential', () => {
  it('the store and erawatch probe --json keep no form of it', async () => {
    const as = await authorizationServer(routes, echoCredential);
    const rs = await resourceServer(routes, { authorizationServers: () => [as.issuer] });
    process.env.ERAWATCH_TEST_HOSTILE_SECRET = SECRET;
    const b = await createBalancer(env.store, {
      name: 'echoing-as',
      publicUrl: rs.url,
      nodeUrls: [rs.url],
      samplesPerCycle: 0,
      intervalMs: 20_000,
      timeoutMs: 4_000,
      auth: {
        type: 'oauth-client-credentials',
        clientId: 'erawatch',
        clientSecret: 'env:ERAWATCH_TEST_HOSTILE_SECRET',
        issuer: as.issuer,
      },
    });
    await runOneCycle(env.store, b.id);
    const nodes = await listNodes(env.store, b.id);
    expect(nodes[0]?.state?.verdict.reason).toBe('oauth_token_failed: invalid_client');
    expectNoSecret(JSON.stringify(nodes));
    delete process.env.ERAWATCH_TEST_HOSTILE_SECRET;

    const cli = await new Promise<{ stdout: string }>((resolve) => {
      execFile(
        process.execPath,
        [BIN, 'probe', rs.url, '--json', '--oauth-client-id', 'erawatch', '--oauth-client-secret-env', 'S'],
        { timeout: 25_000, env: { ...process.env, S: SECRET } },
        (_err, stdout) => resolve({ stdout }),
      );
    });
    // Without an issuer the CLI refuses before any request; with one, the echo is redacted.
    expect(cli.stdout).toBe('');
    const bound = await new Promise<{ stdout: string }>((resolve) => {
      execFile(
        process.execPath,
        [
          BIN,
          'probe',
          rs.url,
          '--json',
          '--oauth-client-id',
          'erawatch',
          '--oauth-client-secret-env',
          'S',
          '--oauth-issuer',
          as.issuer,
        ],
        { timeout: 25_000, env: { ...process.env, S: SECRET } },
        (_err, stdout) => resolve({ stdout }),
      );
    });
    expect(JSON.parse(bound.stdout)).toMatchObject({ reason: 'oauth_token_failed: invalid_client' });
    expectNoSecret(bound.stdout);
  }, 60_000);
});
