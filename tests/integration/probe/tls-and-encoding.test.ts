// Pinning over TLS keeps the URL's name for SNI and certificate checks; compressed bodies are capped
// after decompression.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSharedProbeAgents, createProbeAgent, DEFAULT_PROBE_OPTIONS, probeNode } from '@/lib/probe';
import { discoverResult, rpcOf, startFaultPeer, type FaultPeer } from '@/tests/support/fault-peer';

const LOOPBACK = { allowLoopback: true, allowPrivate: true };
const NAME = 'mcp.fleet.test';

describe('TLS with a pinned address', () => {
  let dir = '';
  let server: Server | null = null;
  let port = 0;
  let cert = '';
  const seen: Array<{ servername: string | false | null; host: string | undefined }> = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'erawatch-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        `/CN=${NAME}`,
        '-addext',
        `subjectAltName=DNS:${NAME}`,
      ],
      { stdio: 'ignore', timeout: 20_000 },
    );
    cert = readFileSync(path.join(dir, 'cert.pem'), 'utf8');
    const https = createServer({ key: readFileSync(path.join(dir, 'key.pem')), cert }, (req, res) => {
      seen.push({ servername: (req.socket as TLSSocket).servername, host: req.headers.host });
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        const id = (JSON.parse(raw) as { id: unknown }).id;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(discoverResult(id)));
      });
    });
    await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
    server = https;
    const address = https.address();
    port = typeof address === 'object' && address ? address.port : 0;
  });

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('presents the URL name as SNI and verifies the certificate against it', async () => {
    const agent = createProbeAgent(LOOPBACK, { tls: { ca: cert } });
    try {
      const v = await probeNode(
        { url: `https://${NAME}:${port}/mcp`, connectAddress: '127.0.0.1' },
        DEFAULT_PROBE_OPTIONS,
        { dispatcher: agent, egress: LOOPBACK },
      );
      expect(v).toMatchObject({ verdict: 'modern', reason: 'discover_result', address: '127.0.0.1' });
      expect(seen.at(-1)).toEqual({ servername: NAME, host: `${NAME}:${port}` });
    } finally {
      await agent.close();
    }
  });

  it('fails with tls_untrusted when the certificate is not trusted, and sends no initialize', async () => {
    const agent = createProbeAgent(LOOPBACK);
    try {
      const v = await probeNode(
        { url: `https://${NAME}:${port}/mcp`, connectAddress: '127.0.0.1', allowLegacy: true },
        DEFAULT_PROBE_OPTIONS,
        { dispatcher: agent, egress: LOOPBACK },
      );
      expect(v.reason).toBe('tls_untrusted');
      expect(v.evidence.map((e) => e.outcome)).toEqual(['tls_untrusted']);
    } finally {
      await agent.close();
    }
  });
});

describe('compressed bodies', () => {
  let peer: FaultPeer;
  beforeAll(async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
    peer = await startFaultPeer((req, res) => {
      const { id } = rpcOf(req);
      if (req.headers['x-case'] === 'bomb') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(bomb);
        return;
      }
      res
        .writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
        .end(gzipSync(JSON.stringify(discoverResult(id))));
    });
  });
  afterAll(async () => {
    await peer.close();
    await closeSharedProbeAgents();
  });

  it('reads a gzip-encoded DiscoverResult', async () => {
    const v = await probeNode({ url: peer.url }, DEFAULT_PROBE_OPTIONS, { egress: LOOPBACK });
    expect(v).toMatchObject({ verdict: 'modern', negotiatedVersion: '2026-07-28' });
  });

  it('counts the cap after decompression: a small gzip of 64 MiB is body_too_large', async () => {
    const heapBefore = process.memoryUsage().heapUsed;
    const v = await probeNode({ url: peer.url, headers: { 'x-case': 'bomb' } }, DEFAULT_PROBE_OPTIONS, {
      egress: LOOPBACK,
    });
    expect(v.reason).toBe('body_too_large');
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(32 * 1024 * 1024);
  });
});
