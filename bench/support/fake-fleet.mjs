// A lightweight fake fleet for the poller benchmark: one loopback HTTP server in its own process where the
// path picks the node and its era: /m/<n> modern-only, /d/<n> dual-era, /l/<n> legacy (v1 stateless), with
// the wire shapes of real SDK servers. It prints `listening <port>` and answers GET /__stats with its CPU use.
// With `--track` it also keeps the start time of every probe per node (a probe opens with server/discover) and
// counts probes that start while another request to the same node is in flight (GET /__probes?from=<ms>).
// With `--tls <cert.pem> <key.pem>` the nodes answer over HTTPS, and the two
// GET routes move to a plain-HTTP control port (`listening <port> control <port>`); /__stats then counts TLS
// connections and resumed ones. `--keep-alive-timeout <ms>` sets the server's idle timeout (0: none); the
// default is 60 s. `--ports <n>` adds n listeners, one per node (node i on the i-th, modulo n), so each node is
// its own origin with its own connections and TLS sessions, as a real fleet's nodes are; GET /__ports lists
// them (the control routes then move to a port of their own in plain HTTP too).
import http from 'node:http';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import net from 'node:net';

const track = process.argv.includes('--track');
const tlsArg = process.argv.indexOf('--tls');
const tls = tlsArg >= 0;
const credentials = tls
  ? { cert: readFileSync(process.argv[tlsArg + 1]), key: readFileSync(process.argv[tlsArg + 2]) }
  : null;
const keepAliveArg = process.argv.indexOf('--keep-alive-timeout');
const keepAliveMs = keepAliveArg >= 0 ? Number(process.argv[keepAliveArg + 1]) : 60_000;
const portsArg = process.argv.indexOf('--ports');
const extraPorts = portsArg >= 0 ? Number(process.argv[portsArg + 1]) : 0;
const nodePorts = [];
let tlsConnections = 0;
let tlsResumed = 0;
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
function control(req, res) {
  if (req.method === 'GET' && req.url === '/__stats') {
    const cpu = process.cpuUsage();
    json(res, 200, {
      requests,
      cpuMicros: cpu.user + cpu.system,
      probes: probeCount,
      overlaps,
      tlsConnections,
      tlsResumed,
    });
    return true;
  }
  if (req.method === 'GET' && req.url === '/__ports') {
    json(res, 200, { ports: nodePorts });
    return true;
  }
  if (req.method === 'GET' && req.url?.startsWith('/__probes')) {
    const from = Number(new URL(req.url, 'http://fleet').searchParams.get('from') ?? 0);
    const times = {};
    for (const [node, at] of probeTimes) {
      const kept = at.filter((t) => t >= from);
      if (kept.length > 0) times[node] = kept;
    }
    json(res, 200, { overlaps, times });
    return true;
  }
  return false;
}

function nodes(req, res) {
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
}

function listen(s) {
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve(s.address().port)));
}

function nodeServer() {
  if (!tls) return http.createServer(nodes);
  const s = https.createServer(credentials, nodes);
  s.on('secureConnection', (socket) => {
    tlsConnections += 1;
    if (socket.isSessionReused()) tlsResumed += 1;
  });
  return s;
}

let server;
let controlServer = null;
if (tls || extraPorts > 0) {
  server = nodeServer();
  controlServer = http.createServer((req, res) => {
    if (!control(req, res)) res.writeHead(404).end();
  });
} else {
  server = http.createServer((req, res) => {
    if (!control(req, res)) nodes(req, res);
  });
}
server.keepAliveTimeout = keepAliveMs;
// The per-node ports are bare listeners handing their connections to the one node server (one certificate
// context, one keep-alive timer policy): thousands of them start in a moment.
const extra = [];
for (let i = 0; i < extraPorts; i++) {
  const s = net.createServer((socket) => server.emit('connection', socket));
  extra.push(s);
  nodePorts.push(await listen(s));
}
const port = await listen(server);
const controlPort = controlServer ? await listen(controlServer) : port;
process.stdout.write(`listening ${port} control ${controlPort}\n`);
process.on('SIGTERM', () => {
  server.closeAllConnections();
  for (const s of extra) s.close();
  controlServer?.close();
  server.close(() => process.exit(0));
});
