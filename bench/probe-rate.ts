// `npm run bench -- probe [--duration-ms N] [--concurrency N] [--rounds N] [--http-client h1|undici]
//   [--tls [--keep-alive-timeout 5s|75s|none]]`:
// probeNode (over the project's HTTP client, or undici's Pool per origin as the reference) throughput beside a
// raw undici POST loop of the same request bytes at the same concurrency, against (1) a canned-DiscoverResult
// server in its own process, so the client side is what is measured, and (2) the real v2 SDK server.
// With --tls: the canned server over plain HTTP and over HTTPS (a CA and certificate made at start, the CA
// given to the prober as an operator gives a private one), kept alive and reconnecting for every probe (what
// a 5 s server keep-alive amounts to at a 30 s interval), beside a bare node:tls loop of a resumed handshake
// and one exchange: CPU, handshakes and resumed handshakes per probe, all in the same run (bench/tls-probe.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { parseArgs } from 'node:util';
import { Agent, type Dispatcher } from 'undici';
import { startPeer, stopChild } from '@/lib/peers/spawn';
import { createProbeAgent, DEFAULT_PROBE_OPTIONS, probeNode } from '@/lib/probe';
import { parseHttpClient, UndiciProbeClient, type HttpClientName } from './support/undici-probe-client';
import { parseKeepAlive, runTlsProbeBench } from './tls-probe';

const CANNED_SERVER = `
import { createServer } from 'node:http';
const body = (id) => JSON.stringify({ jsonrpc: '2.0', id, result: {
  supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, resultType: 'complete', ttlMs: 0,
  cacheScope: 'private', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'canned', version: '1' } } } });
const server = createServer((req, res) => {
  let raw = '';
  req.setEncoding('utf8');
  req.on('data', (c) => { raw += c; });
  req.on('end', () => {
    let id = null;
    try { id = JSON.parse(raw).id ?? null; } catch {}
    const text = body(id);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
process.on('SIGTERM', () => { server.closeAllConnections(); server.close(() => process.exit(0)); });
`;

async function startCanned(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', CANNED_SERVER], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('canned server did not start within 10 s')), 10_000);
    child.stdout?.once('data', (chunk: Buffer) => {
      clearTimeout(timer);
      const match = /"port":(\d+)/.exec(chunk.toString());
      if (match?.[1]) resolve(Number(match[1]));
      else reject(new Error(`unexpected canned server output: ${chunk.toString()}`));
    });
    child.once('exit', (code) => reject(new Error(`canned server exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, child };
}

interface Run {
  count: number;
  failures: number;
  wallMs: number;
  cpuMs: number;
}

/** Runs `once` from `concurrency` workers until the deadline; the loop stops by itself. */
async function loop(concurrency: number, durationMs: number, once: () => Promise<boolean>): Promise<Run> {
  let count = 0;
  let failures = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  const deadline = start + durationMs;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      if (await once()) count++;
      else failures++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const used = process.cpuUsage(cpu);
  return { count, failures, wallMs: performance.now() - start, cpuMs: (used.user + used.system) / 1000 };
}

function rawDiscover(dispatcher: Dispatcher, url: URL): () => Promise<boolean> {
  let n = 0;
  return async () => {
    n++;
    // The same bytes probeNode sends: headers, envelope and a string id of the same shape.
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: `erawatch-${n}`,
      method: 'server/discover',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': DEFAULT_PROBE_OPTIONS.clientInfo,
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    });
    const res = await dispatcher.request({
      origin: url.origin,
      path: url.pathname,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'server/discover',
      },
      body,
    });
    await res.body.text();
    return res.statusCode === 200;
  };
}

interface Row {
  server: string;
  rawRate: number;
  probeRate: number;
  /** Median of the per-round probe/raw rate ratios. */
  ratio: number;
  ratios: number[];
  rawCpuMs: number;
  probeCpuMs: number;
  failures: number;
}

async function measure(
  server: string,
  url: string,
  concurrency: number,
  durationMs: number,
  rounds: number,
  client: HttpClientName,
): Promise<Row> {
  const target = new URL(url);
  const raw = new Agent({ keepAliveTimeout: 30_000 });
  const policy = { allowLoopback: true, allowPrivate: true };
  const probeAgent: Dispatcher =
    client === 'h1'
      ? createProbeAgent(policy)
      : new UndiciProbeClient(policy, { keepAliveTimeoutMs: 30_000 });
  const deps = { dispatcher: probeAgent, egress: { allowLoopback: true, allowPrivate: true } };
  const probeOnce = async (): Promise<boolean> =>
    (await probeNode({ url }, DEFAULT_PROBE_OPTIONS, deps)).verdict === 'modern';
  const rawOnce = rawDiscover(raw, target);
  try {
    const warm = Math.min(1_000, durationMs);
    await loop(concurrency, warm, rawOnce);
    await loop(concurrency, warm, probeOnce);
    const rawRuns: Run[] = [];
    const probeRuns: Run[] = [];
    const ratios: number[] = [];
    // Short interleaved rounds in alternating order, and the median of per-round ratios: on a shared
    // machine the load drifts between rounds far more than it does within one pair.
    for (let i = 0; i < rounds; i++) {
      const rawFirst = i % 2 === 0;
      const first = await loop(concurrency, durationMs, rawFirst ? rawOnce : probeOnce);
      const second = await loop(concurrency, durationMs, rawFirst ? probeOnce : rawOnce);
      const [r, p] = rawFirst ? [first, second] : [second, first];
      rawRuns.push(r);
      probeRuns.push(p);
      ratios.push(p.count / p.wallMs / (r.count / r.wallMs));
    }
    const rate = (runs: Run[]): number =>
      runs.reduce((s, r) => s + r.count, 0) / (runs.reduce((s, r) => s + r.wallMs, 0) / 1000);
    const cpuPer = (runs: Run[]): number =>
      runs.reduce((s, r) => s + r.cpuMs, 0) /
      Math.max(
        1,
        runs.reduce((s, r) => s + r.count, 0),
      );
    const rawRate = rate(rawRuns);
    const probeRate = rate(probeRuns);
    const sorted = [...ratios].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
    return {
      server,
      rawRate,
      probeRate,
      ratio: median,
      ratios,
      rawCpuMs: cpuPer(rawRuns),
      probeCpuMs: cpuPer(probeRuns),
      failures: [...rawRuns, ...probeRuns].reduce((s, r) => s + r.failures, 0),
    };
  } finally {
    await Promise.all([raw.close(), probeAgent.close()]);
  }
}

function printRows(rows: Row[], concurrency: number, durationMs: number, rounds: number): void {
  process.stdout.write(
    `concurrency ${concurrency}, ${rounds} interleaved round(s) of ${durationMs} ms per side, node ${process.version}\n`,
  );
  const header = [
    'server',
    'raw req/s',
    'probe/s',
    'median ratio',
    'raw cpu ms/req',
    'probe cpu ms/probe',
    'failures',
  ];
  const lines = rows.map((r) => [
    r.server,
    r.rawRate.toFixed(0),
    r.probeRate.toFixed(0),
    r.ratio.toFixed(3),
    r.rawCpuMs.toFixed(4),
    r.probeCpuMs.toFixed(4),
    String(r.failures),
  ]);
  const perRound = rows.map((r) => `  ${r.server}: ${r.ratios.map((x) => x.toFixed(3)).join(' ')}`);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  for (const line of [header, ...lines]) {
    process.stdout.write(`${line.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ')}\n`);
  }
  process.stdout.write(`per-round probe/raw ratios:\n${perRound.join('\n')}\n`);
}

export async function run(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        'duration-ms': { type: 'string', default: '1500' },
        concurrency: { type: 'string', default: '32' },
        rounds: { type: 'string', default: '5' },
        'http-client': { type: 'string', default: 'h1' },
        tls: { type: 'boolean', default: false },
        'keep-alive-timeout': { type: 'string', default: '75s' },
      },
    }));
    parseHttpClient(values['http-client']);
    parseKeepAlive(values['keep-alive-timeout']);
  } catch (err) {
    process.stderr.write(`bench probe: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  const durationMs = Number(values['duration-ms']);
  const concurrency = Number(values.concurrency);
  const rounds = Number(values.rounds);
  const client = parseHttpClient(values['http-client']);
  for (const [name, value, max] of [
    ['--duration-ms', durationMs, 600_000],
    ['--concurrency', concurrency, 1_024],
    ['--rounds', rounds, 50],
  ] as const) {
    if (!Number.isInteger(value) || value < 1 || value > max) {
      process.stderr.write(`bench probe: ${name} must be an integer between 1 and ${max}\n`);
      return 2;
    }
  }

  if (values.tls) {
    return runTlsProbeBench({
      concurrency,
      durationMs,
      rounds,
      client,
      keepAliveMs: parseKeepAlive(values['keep-alive-timeout']),
    });
  }
  const canned = await startCanned();
  const rows: Row[] = [];
  try {
    rows.push(await measure('canned DiscoverResult', canned.url, concurrency, durationMs, rounds, client));
  } finally {
    await stopChild(canned.child);
  }
  const v2 = await startPeer('v2-dual');
  try {
    rows.push(await measure('real v2 SDK 2.4.0 (dual-era)', v2.url, concurrency, durationMs, rounds, client));
  } finally {
    await v2.stop();
  }
  process.stdout.write(`http client: ${client}\n`);
  printRows(rows, concurrency, durationMs, rounds);
  const cannedRatio = rows[0]?.ratio ?? 0;
  process.stdout.write(
    `target: probe rate >= 0.8 x raw against the canned server: ${cannedRatio >= 0.8 ? 'met' : 'NOT met'} (${cannedRatio.toFixed(3)})\n`,
  );
  return 0;
}
