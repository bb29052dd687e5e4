// A lightweight fake fleet for the poller benchmark: one loopback HTTP server in its own process where the
// path picks the node and its era: /m/<n> modern-only, /d/<n> dual-era, /l/<n> legacy (v1 stateless), with
// the wire shapes of real SDK servers. It prints `listening <port>` and answers GET /__stats with its CPU use.
// With `--track` it also keeps the start time of every probe per node (a probe opens with server/discover) and
// counts probes that start while another request to the same node is in flight (GET /__probes?from=<ms>).
import http from 'node:http';

const track = process.argv.includes('--track');
/** node number → start times (epoch ms) of its probes, and requests in flight, when tracking. */
const probeTimes = new Map();
const inFlight = new Map();
let overlaps = 0;
let probeCount = 0;

const MODERN = '2026-07-28';
const LEGACY = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

function json(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

function sse(res, body) {
  const text = `event: message\ndata: ${JSON.stringify(body)}\n\n`;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.end(text);
}

function discoverResult(id, name) {
  return {
    result: {
      supportedVersions: [MODERN],
      capabilities: { tools: { listChanged: true } },
      resultType: 'complete',
      ttlMs: 0,
      cacheScope: 'private',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name, version: '2.4.0' } },
    },
    jsonrpc: '2.0',
    id,
  };
}

function initializeResult(id, name, version, requested) {
  const protocolVersion = LEGACY.includes(requested) ? requested : LEGACY[0];
  return {
    result: {
      protocolVersion,
      capabilities: { tools: { listChanged: true } },
      serverInfo: { name, version },
    },
    jsonrpc: '2.0',
    id,
  };
}

function handle(kind, msg, res) {
  const id = msg.id ?? null;
  const method = msg.method;
  const meta = msg.params?._meta ?? {};
  const modernRequest = typeof meta['io.modelcontextprotocol/protocolVersion'] === 'string';
  if (id === null || id === undefined) {
    res.writeHead(202).end();
    return;
  }
  if (kind === 'l') {
    if (method === 'initialize')
      sse(res, initializeResult(id, 'fleet-legacy', '1.32.2', msg.params?.protocolVersion));
    else
      json(res, 400, {
        jsonrpc: '2.0',
        error: {
          code: -32000,
          message: `Bad Request: Unsupported protocol version: ${MODERN} (supported versions: ${LEGACY.join(', ')})`,
        },
        id: null,
      });
    return;
  }
  if (method === 'server/discover' && modernRequest) {
    json(res, 200, discoverResult(id, kind === 'm' ? 'fleet-modern' : 'fleet-dual'));
  } else if (method === 'initialize' && kind === 'd') {
    sse(res, initializeResult(id, 'fleet-dual', '2.4.0', msg.params?.protocolVersion));
  } else if (method === 'initialize') {
    json(res, 400, {
      jsonrpc: '2.0',
      error: {
        code: -32022,
        message: `Unsupported protocol version: ${msg.params?.protocolVersion}`,
        data: { supported: [MODERN], requested: msg.params?.protocolVersion },
      },
      id,
    });
  } else {
    json(res, 404, { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id });
  }
}

let requests = 0;
const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/__stats') {
    const cpu = process.cpuUsage();
    json(res, 200, { requests, cpuMicros: cpu.user + cpu.system, probes: probeCount, overlaps });
    return;
  }
  if (req.method === 'GET' && req.url?.startsWith('/__probes')) {
    const from = Number(new URL(req.url, 'http://fleet').searchParams.get('from') ?? 0);
    const times = {};
    for (const [node, at] of probeTimes) {
      const kept = at.filter((t) => t >= from);
      if (kept.length > 0) times[node] = kept;
    }
    json(res, 200, { overlaps, times });
    return;
  }
  const m = /^\/([mdl])\/(\d+)/.exec(req.url ?? '');
  if (!m || req.method !== 'POST') {
    res.writeHead(m ? 405 : 404).end();
    return;
  }
  const node = Number(m[2]);
  if (track) {
    inFlight.set(node, (inFlight.get(node) ?? 0) + 1);
    res.once('close', () => inFlight.set(node, (inFlight.get(node) ?? 1) - 1));
  }
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    requests += 1;
    let msg;
    try {
      msg = JSON.parse(body);
    } catch {
      json(res, 400, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
      return;
    }
    if (track && msg.method === 'server/discover') {
      probeCount += 1;
      if ((inFlight.get(node) ?? 0) > 1) overlaps += 1;
      const at = probeTimes.get(node);
      if (at) at.push(Date.now());
      else probeTimes.set(node, [Date.now()]);
    }
    handle(m[1], msg, res);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
