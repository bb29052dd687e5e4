// `npm run bench -- probe --tls [--keep-alive-timeout 5s|75s|none] [--http-client h1|undici]`: what a probe
// costs the prober over HTTPS, beside plain HTTP and a bare node:tls floor, in one run.
//
// A canned-DiscoverResult server in its own process listens three times: plain HTTP kept alive, HTTPS kept
// alive (its keep-alive timeout the flag's), and HTTPS answering every request with `connection: close`,
// so each probe opens a new connection (what a 5 s server keep-alive amounts to at a 30 s interval). Its
// certificate is made at start for 127.0.0.1 by a private CA, and the CA goes to the prober as an
// operator's CA bundle does. The floor is a bare node:tls loop: a resumed TLS 1.3 handshake, one request
// of the probe's bytes, its answer, close. Variants run in interleaved rounds; CPU is this process's.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http2 from 'node:http2';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import type { Dispatcher } from 'undici';
import { stopChild } from '@/lib/peers/spawn';
import { createProbeAgent, DEFAULT_PROBE_OPTIONS, probeNode } from '@/lib/probe';
import { issueCert, makeCa } from '@/tests/support/tls-certs';
import { parseDuration } from './support/args';
import { UndiciProbeClient, type HttpClientName } from './support/undici-probe-client';

/** `none` (the server never closes an idle connection), or a duration such as 5s or 75s. */
export function parseKeepAlive(value: string): number | null {
  if (value === 'none') return null;
  const ms = parseDuration(value);
  if (ms < 1_000 || ms > 3_600_000)
    throw new Error(`--keep-alive-timeout must be none or 1s to 1h, got '${value}'`);
  return ms;
}

const CANNED_TLS_SERVER = `
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import { readFileSync } from 'node:fs';
const body = (id) => JSON.stringify({ jsonrpc: '2.0', id, result: {
  supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, resultType: 'complete', ttlMs: 0,
  cacheScope: 'private', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'canned', version: '1' } } } });
const handler = (close) => (req, res) => {
  let raw = '';
  req.setEncoding('utf8');
  req.on('data', (c) => { raw += c; });
  req.on('end', () => {
    let id = null;
    try { id = JSON.parse(raw).id ?? null; } catch {}
    const text = body(id);
    const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) };
    if (close) headers.connection = 'close';
    res.writeHead(200, headers);
    res.end(text);
  });
};
const [keepAliveText, certFile, keyFile] = process.argv.slice(-3);
const keepAlive = Number(keepAliveText);
const credentials = { cert: readFileSync(certFile), key: readFileSync(keyFile) };
const servers = [
  http.createServer(handler(false)),
  https.createServer(credentials, handler(false)),
  https.createServer(credentials, handler(true)),
];
for (const s of servers) s.keepAliveTimeout = keepAlive;
// HTTP/2 over TLS (ALPN h2): one long-lived session per client, a stream per exchange.
servers.push(http2.createSecureServer(credentials, handler(false)));
const ports = await Promise.all(servers.map((s) => new Promise((r) => s.listen(0, '127.0.0.1', () => r(s.address().port)))));
console.log(JSON.stringify({ ports }));
process.on('SIGTERM', () => { for (const s of servers) s.closeAllConnections?.(); process.exit(0); });
`;

export async function startCannedTls(
  cert: { cert: string; key: string },
  keepAliveMs: number | null,
): Promise<{ ports: number[]; child: ChildProcess }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-canned-tls-'));
  fs.writeFileSync(path.join(dir, 'cert.pem'), cert.cert);
  fs.writeFileSync(path.join(dir, 'key.pem'), cert.key, { mode: 0o600 });
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      CANNED_TLS_SERVER,
      '--',
      String(keepAliveMs ?? 0),
      path.join(dir, 'cert.pem'),
      path.join(dir, 'key.pem'),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  child.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const ports = await new Promise<number[]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('canned server did not start within 10 s')), 10_000);
    child.stdout?.once('data', (chunk: Buffer) => {
      clearTimeout(timer);
      const parsed = JSON.parse(chunk.toString()) as { ports: number[] };
      resolve(parsed.ports);
    });
    child.once('exit', (code) => reject(new Error(`canned server exited with ${code}`)));
  });
  return { ports, child };
}

interface Counters {
  handshakes: number;
  resumed: number;
}

interface Variant {
  name: string;
  once: () => Promise<boolean>;
  counters: () => Counters;
}

interface Tally {
  count: number;
  failures: number;
  wallMs: number;
  cpuMs: number;
  handshakes: number;
  resumed: number;
}

export async function loop(concurrency: number, durationMs: number, v: Variant): Promise<Tally> {
  let count = 0;
  let failures = 0;
  const before = v.counters();
  const cpu = process.cpuUsage();
  const start = performance.now();
  const deadline = start + durationMs;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      if (await v.once()) count++;
      else failures++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const used = process.cpuUsage(cpu);
  const after = v.counters();
  return {
    count,
    failures,
    wallMs: performance.now() - start,
    cpuMs: (used.user + used.system) / 1000,
    handshakes: after.handshakes - before.handshakes,
    resumed: after.resumed - before.resumed,
  };
}

/** The probe's discover bytes, as probeNode sends them. */
function discoverRequest(port: number): string {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 'erawatch-1',
    method: 'server/discover',
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': DEFAULT_PROBE_OPTIONS.clientInfo,
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  return (
    `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nconnection: keep-alive\r\ncontent-type: application/json\r\n` +
    `accept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\nmcp-method: server/discover\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

/** One new TLS connection per exchange, with one SecureContext; `resume` offers the last session. */
export function bareTls(port: number, context: tls.SecureContext, resume: boolean): Variant {
  const counters: Counters = { handshakes: 0, resumed: 0 };
  const request = discoverRequest(port);
  let session: Buffer | undefined;
  const once = (): Promise<boolean> =>
    new Promise<boolean>((resolve) => {
      const s = tls.connect({
        host: '127.0.0.1',
        port,
        secureContext: context,
        ALPNProtocols: ['http/1.1'],
        ...(resume && session ? { session } : {}),
      });
      if (resume) s.on('session', (b: Buffer) => (session = b));
      let head = '';
      let want = -1;
      let got = 0;
      s.once('secureConnect', () => {
        counters.handshakes += 1;
        if (s.isSessionReused()) counters.resumed += 1;
        s.setNoDelay(true);
        s.write(request);
      });
      s.on('data', (d: Buffer) => {
        if (want < 0) {
          head += d.toString('latin1');
          const end = head.indexOf('\r\n\r\n');
          if (end < 0) return;
          want = Number(/content-length: (\d+)/i.exec(head.slice(0, end))?.[1] ?? 0);
          got = head.length - end - 4;
        } else got += d.length;
        if (got >= want) {
          s.destroy();
          resolve(true);
        }
      });
      s.on('error', () => resolve(false));
      s.on('close', () => resolve(false));
    });
  return { name: '', once, counters: () => ({ ...counters }) };
}

/**
 * HTTP/2 (ALPN h2), one long-lived session, one stream per exchange of the probe's bytes, the answer read
 * whole: the least a probe over h2 would cost its transport, without any of the probe's own work.
 */
function bareH2(port: number, context: tls.SecureContext): Variant & { close(): void } {
  const counters: Counters = { handshakes: 0, resumed: 0 };
  const request = discoverRequest(port);
  const body = request.slice(request.indexOf('\r\n\r\n') + 4);
  let session: http2.ClientHttp2Session | null = null;
  const open = (): http2.ClientHttp2Session => {
    if (session && !session.closed && !session.destroyed) return session;
    const s = http2.connect(`https://127.0.0.1:${port}`, { secureContext: context });
    s.on('error', () => undefined);
    s.once('connect', () => (counters.handshakes += 1));
    session = s;
    return s;
  };
  const once = (): Promise<boolean> =>
    new Promise<boolean>((resolve) => {
      const stream = open().request({
        ':method': 'POST',
        ':path': '/mcp',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'server/discover',
      });
      let status = 0;
      const chunks: Buffer[] = [];
      stream.on('response', (headers) => (status = Number(headers[':status'])));
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        try {
          JSON.parse(Buffer.concat(chunks).toString('utf8'));
          resolve(status === 200);
        } catch {
          resolve(false);
        }
      });
      stream.on('error', () => resolve(false));
      stream.end(body);
    });
  return {
    name: 'bare node:http2 (ALPN h2), one session, one stream per exchange',
    once,
    counters: () => ({ ...counters }),
    close: () => session?.close(),
  };
}

function probeVariant(name: string, url: string, dispatcher: Dispatcher, counters: () => Counters): Variant {
  const deps = { dispatcher, egress: { allowLoopback: true, allowPrivate: true } };
  return {
    name,
    once: async () => (await probeNode({ url }, DEFAULT_PROBE_OPTIONS, deps)).verdict === 'modern',
    counters,
  };
}

export interface TlsProbeBenchArgs {
  concurrency: number;
  durationMs: number;
  rounds: number;
  client: HttpClientName;
  keepAliveMs: number | null;
}

export async function runTlsProbeBench(args: TlsProbeBenchArgs): Promise<number> {
  const ca = await makeCa('Erawatch Bench CA');
  const cert = await issueCert(ca, ['127.0.0.1']);
  const canned = await startCannedTls(cert, args.keepAliveMs);
  const [plainPort, keptPort, closePort, h2Port] = canned.ports as [number, number, number, number];
  const policy = { allowLoopback: true, allowPrivate: true };
  // The CA as an operator gives it: one bundle, one agent (and SecureContext) for the nodes it signs.
  const h1 = args.client === 'h1' ? createProbeAgent(policy, { tls: { ca: ca.cert } }) : null;
  const undici =
    args.client === 'undici'
      ? new UndiciProbeClient(policy, { keepAliveTimeoutMs: 120_000, ca: ca.cert })
      : null;
  const dispatcher: Dispatcher = h1 ?? (undici as Dispatcher);
  const counters = (): Counters =>
    h1
      ? { handshakes: h1.tlsCounters.handshakes, resumed: h1.tlsCounters.resumed }
      : (undici?.tlsCounters() ?? { handshakes: 0, resumed: 0 });
  const context = tls.createSecureContext({ ca: ca.cert });
  const floor = { ...bareTls(closePort, context, true), name: 'bare node:tls, resumed handshake + exchange' };
  const full = { ...bareTls(closePort, context, false), name: 'bare node:tls, full handshake + exchange' };
  const h2 = bareH2(h2Port, context);
  const variants: Variant[] = [
    probeVariant('probe, HTTP kept alive', `http://127.0.0.1:${plainPort}/mcp`, dispatcher, counters),
    probeVariant('probe, HTTPS kept alive', `https://127.0.0.1:${keptPort}/mcp`, dispatcher, counters),
    probeVariant(
      'probe, HTTPS new connection per probe',
      `https://127.0.0.1:${closePort}/mcp`,
      dispatcher,
      counters,
    ),
    floor,
    full,
    h2,
  ];
  const tallies = new Map<string, Tally[]>(variants.map((v) => [v.name, []]));
  try {
    for (const v of variants) await loop(args.concurrency, Math.min(1_000, args.durationMs), v);
    for (let r = 0; r < args.rounds; r++) {
      // Each round in another order: the machine's load drifts between rounds more than within one.
      const order = r % 2 === 0 ? variants : [...variants].reverse();
      for (const v of order) tallies.get(v.name)?.push(await loop(args.concurrency, args.durationMs, v));
    }
  } finally {
    h2.close();
    await stopChild(canned.child);
    await dispatcher.close();
  }

  const sum = (ts: Tally[], k: keyof Tally): number => ts.reduce((s, t) => s + t[k], 0);
  const rows = variants.map((v) => {
    const ts = tallies.get(v.name) ?? [];
    const count = Math.max(1, sum(ts, 'count'));
    const perRound = ts.map((t) => (t.cpuMs * 1000) / Math.max(1, t.count)).sort((a, b) => a - b);
    return {
      medianCpuMicros: perRound[Math.floor(perRound.length / 2)] ?? NaN,
      name: v.name,
      perSecond: sum(ts, 'count') / (sum(ts, 'wallMs') / 1000),
      cpuMicros: (sum(ts, 'cpuMs') * 1000) / count,
      perRoundCpuMicros: ts.map((t) => Math.round((t.cpuMs * 1000) / Math.max(1, t.count))),
      handshakesPerProbe: sum(ts, 'handshakes') / count,
      resumedPerProbe: sum(ts, 'resumed') / count,
      resumedShare: sum(ts, 'handshakes') > 0 ? sum(ts, 'resumed') / sum(ts, 'handshakes') : null,
      failures: sum(ts, 'failures'),
    };
  });
  const [http, kept, fresh, floorRow] = rows as [
    (typeof rows)[number],
    (typeof rows)[number],
    (typeof rows)[number],
    (typeof rows)[number],
  ];
  // Per-round medians: one round that met a burst of the machine's other work moves a mean, not a median.
  const keptRatio = kept.medianCpuMicros / http.medianCpuMicros;
  const freshRatio = fresh.medianCpuMicros / floorRow.medianCpuMicros;
  const resumedShare = fresh.resumedShare ?? 0;
  process.stdout.write(
    `http client: ${args.client}; server keep-alive ${args.keepAliveMs === null ? 'none' : `${args.keepAliveMs / 1000}s`}; ` +
      `concurrency ${args.concurrency}, ${args.rounds} interleaved round(s) of ${args.durationMs} ms per variant, node ${process.version}\n`,
  );
  const header = [
    'variant',
    '/s',
    'CPU µs/probe',
    'median',
    'per round',
    'handshakes/probe',
    'resumed/probe',
    'failures',
  ];
  const lines = rows.map((r) => [
    r.name,
    r.perSecond.toFixed(0),
    r.cpuMicros.toFixed(0),
    r.medianCpuMicros.toFixed(0),
    r.perRoundCpuMicros.join(' '),
    r.handshakesPerProbe.toFixed(3),
    r.resumedPerProbe.toFixed(3),
    String(r.failures),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  for (const line of [header, ...lines]) {
    process.stdout.write(`${line.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ')}\n`);
  }
  const pass = {
    kept: keptRatio <= 1.3,
    fresh: freshRatio <= 1.5,
    resumed: resumedShare >= 0.7,
  };
  process.stdout.write(
    `targets (per-round medians): HTTPS kept alive ${keptRatio.toFixed(2)}× HTTP (≤1.3) ${pass.kept ? 'met' : 'MISSED'}; ` +
      `HTTPS new connection ${freshRatio.toFixed(2)}× the bare resumed floor (≤1.5) ${pass.fresh ? 'met' : 'MISSED'}; ` +
      `${(resumedShare * 100).toFixed(1)} % of its handshakes resumed (≥70 %) ${pass.resumed ? 'met' : 'MISSED'}\n`,
  );
  fs.mkdirSync('bench-results', { recursive: true });
  fs.writeFileSync(
    `bench-results/probe-tls-${args.client}.json`,
    `${JSON.stringify({ args, rows, keptRatio, freshRatio, resumedShare, pass }, null, 2)}\n`,
  );
  return 0;
}
