// A balancer's CA bundle over real TLS on loopback (a CA and certificates made at test start): given as a
// file or a variable, its nodes are verified with it; a certificate it did not sign is tls_untrusted; the
// certificate's expiry is stored with the verdict and reaches the /metrics gauges (nodes expiring within
// 14 days, the earliest expiry), on both engines.
import fs from 'node:fs';
import path from 'node:path';
import { createServer, type Server } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBalancerByName } from '@/db/queries/balancers';
import { readCertificateGauges } from '@/db/queries/fleet-gauges';
import { listNodes } from '@/db/queries/nodes';
import { createBalancer } from '@/lib/balancers';
import { ValidationError } from '@/lib/errors';
import { runOneCycle } from '@/tests/support/cycle';
import { closeDefaultProbe, createDefaultProbe } from '@/lib/poller/default-probe';
import { CERTIFICATE_EXPIRY_WARNING_MS } from '@/lib/probe/types';
import { discoverResult } from '@/tests/support/fault-peer';
import { issueCert, makeCa, type LeafCert, type TestCa } from '@/tests/support/tls-certs';
import { testSettings } from '../../support/settings';
import { tempStore } from './support';

const DAY = 86_400_000;
const tmp = await tempStore('tls-ca');
const store = tmp.store;
const servers: Server[] = [];
const fast = { intervalMs: 60_000, timeoutMs: 10_000, legacyProbeTimeoutMs: 10_000, samplesPerCycle: 0 };

let ca: TestCa;
let caFile = '';
let healthy: { url: string; cert: LeafCert };
let expiring: { url: string; cert: LeafCert };
let foreign: { url: string; cert: LeafCert };

async function startNode(cert: LeafCert, name: string): Promise<{ url: string; cert: LeafCert }> {
  const server = createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const msg = JSON.parse(raw) as { id: string };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(discoverResult(msg.id)));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `https://127.0.0.1:${port}/mcp/${name}`, cert };
}

beforeAll(async () => {
  ca = await makeCa();
  caFile = path.join(tmp.dir, 'fleet-ca.pem');
  fs.writeFileSync(caFile, ca.cert);
  healthy = await startNode(await issueCert(ca, ['127.0.0.1']), 'healthy');
  expiring = await startNode(
    await issueCert(ca, ['127.0.0.1'], { notAfter: new Date(Date.now() + 3 * DAY) }),
    'expiring',
  );
  foreign = await startNode(await issueCert(await makeCa('Another CA'), ['127.0.0.1']), 'foreign');
});

afterAll(async () => {
  await closeDefaultProbe();
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  await tmp.cleanup();
});

async function verdicts(balancerId: string) {
  const nodes = await listNodes(store, balancerId);
  return new Map(nodes.map((n) => [n.url, n.state?.verdict ?? null]));
}

describe("a balancer's CA bundle", () => {
  it('verifies its nodes with a CA file; a certificate from another CA is tls_untrusted; expiry is stored and gauged', async () => {
    const settings = testSettings();
    const bal = await createBalancer(store, {
      name: 'tls-file',
      publicUrl: healthy.url,
      nodeUrls: [healthy.url, expiring.url, foreign.url],
      tlsCa: `file:${caFile}`,
      ...fast,
    });
    expect(bal.tlsCa).toBe(`file:${caFile}`);
    await runOneCycle(store, bal.id, { settings, probe: createDefaultProbe(settings) });
    const v = await verdicts(bal.id);
    expect(v.get(healthy.url)).toMatchObject({ verdict: 'modern', reason: 'discover_result' });
    expect(v.get(expiring.url)).toMatchObject({ verdict: 'modern', reason: 'discover_result' });
    expect(v.get(foreign.url)).toMatchObject({ verdict: 'unavailable', reason: 'tls_untrusted' });
    const second = (at: Date) => Math.floor(at.getTime() / 1000) * 1000;
    expect(v.get(healthy.url)?.tls).toEqual({ certificateExpiresAt: second(healthy.cert.notAfter) });
    expect(v.get(expiring.url)?.tls).toEqual({ certificateExpiresAt: second(expiring.cert.notAfter) });

    const gauges = await readCertificateGauges(store, Date.now() + CERTIFICATE_EXPIRY_WARNING_MS);
    expect(gauges.find((g) => g.balancer === 'tls-file')).toEqual({
      balancer: 'tls-file',
      expiring: 1,
      earliestExpiry: second(expiring.cert.notAfter),
    });
  });

  it('takes the bundle from a variable (env:NAME); an unset one leaves every node unavailable, naming it', async () => {
    const bal = await createBalancer(store, {
      name: 'tls-env',
      publicUrl: healthy.url,
      nodeUrls: [healthy.url],
      tlsCa: 'env:FLEET_CA_PEM',
      ...fast,
    });
    const without = testSettings();
    await runOneCycle(store, bal.id, { settings: without, probe: createDefaultProbe(without) });
    expect((await verdicts(bal.id)).get(healthy.url)).toMatchObject({
      verdict: 'unavailable',
      reason: 'tls_ca_env_missing:FLEET_CA_PEM',
    });
    const withCa = testSettings({ FLEET_CA_PEM: ca.cert });
    await runOneCycle(store, bal.id, { settings: withCa, probe: createDefaultProbe(withCa) });
    expect((await verdicts(bal.id)).get(healthy.url)).toMatchObject({ verdict: 'modern' });
  });

  it('without a bundle, the system roots do not know a private CA: tls_untrusted, never an era', async () => {
    const settings = testSettings();
    const bal = await createBalancer(store, {
      name: 'tls-none',
      publicUrl: healthy.url,
      nodeUrls: [healthy.url],
      allowLegacy: true,
      ...fast,
    });
    await runOneCycle(store, bal.id, { settings, probe: createDefaultProbe(settings) });
    const v = (await verdicts(bal.id)).get(healthy.url);
    expect(v).toMatchObject({ verdict: 'unavailable', reason: 'tls_untrusted', initializeSent: false });
  });

  it.each([
    ['not a certificate', 'hello'],
    ['a relative file', 'file:ca.pem'],
    ['a bad variable name', 'env:1X'],
    ['a private key', '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----'],
  ])('refuses %s as a CA bundle, and stores nothing', async (_what, tlsCa) => {
    const err = await Promise.resolve()
      .then(() =>
        createBalancer(store, {
          name: `tls-bad-${tlsCa.length}`,
          publicUrl: healthy.url,
          nodeUrls: [healthy.url],
          tlsCa,
          ...fast,
        }),
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(JSON.stringify((err as ValidationError).issues)).toContain('tlsCa');
    expect(JSON.stringify((err as ValidationError).issues)).toContain(
      'must be PEM certificates (-----BEGIN CERTIFICATE-----), file:/absolute/path or env:NAME',
    );
    await expect(getBalancerByName(store, `tls-bad-${tlsCa.length}`)).rejects.toThrow(/not found/i);
  });
});
