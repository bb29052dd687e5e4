// Two host.yaml entries on one origin with different paths are two peers: each has its own cached era, so
// an unavailable verdict for one path never discards the era the other path proved, in either order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadHostConfig } from '@/lib/host-check/config';
import { runHostCheck } from '@/lib/host-check/session';
import { closeSharedProbeAgents } from '@/lib/probe/agent';
import { discoverResult } from '@/tests/support/fault-peer';
import { startRoutes, type RouteRequest, type RouteServer } from '@/tests/support/oauth-routes';
import { makeTempDir } from './fixtures';

const tmp = makeTempDir('host-same-origin');
let server: RouteServer;

/** A modern MCP endpoint: discover and tools/list answered, notifications accepted. */
function modern(req: RouteRequest) {
  const body = JSON.parse(req.body || '{}') as { id?: unknown; method?: string };
  if (body.method === 'server/discover') return { status: 200, body: discoverResult(body.id) };
  if (body.method === 'tools/list')
    return {
      status: 200,
      body: {
        jsonrpc: '2.0',
        id: body.id,
        result: {
          tools: [{ name: 'echo', inputSchema: { type: 'object' } }],
          ttlMs: 0,
          cacheScope: 'private',
        },
      },
    };
  return { status: 202, body: '' };
}

beforeAll(async () => {
  server = await startRoutes({
    '/good/mcp': modern,
    '/broken/mcp': () => ({ status: 500, body: 'upstream down' }),
  });
});
afterAll(async () => {
  await server.close();
  await closeSharedProbeAgents();
  tmp.remove();
});

describe('two endpoints on one origin', () => {
  for (const order of [
    ['good', 'broken'],
    ['broken', 'good'],
  ]) {
    it(`each keeps its own era (${order.join(' first, then ')})`, async () => {
      const file = tmp.write(
        `${order.join('-')}.yaml`,
        stringify({
          collisionPolicy: 'reject',
          servers: order.map((name) => ({
            name,
            url: `${server.origin}/${name}/mcp`,
            retry: { attempts: 1 },
          })),
        }),
      );
      const report = await runHostCheck(await loadHostConfig(file));
      const byName = Object.fromEntries(report.servers.map((s) => [s.name, s]));
      expect(byName.good).toMatchObject({ available: true, era: 'modern', reason: 'discover_result' });
      expect(byName.broken).toMatchObject({ available: false });
      expect(report.tools.map((t) => [t.server, t.name])).toEqual([['good', 'echo']]);
    });
  }
});
