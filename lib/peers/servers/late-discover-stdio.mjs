// A hand-written stdio MCP server that answers its first `server/discover` late and `initialize` at once:
// the slow-starting modern server of "When an old server is really old", as the probe meets it on a pipe.
// node late-discover-stdio.mjs [--discover-delay-ms N] [--hold-discover-until METHOD]
//   [--answer-discover-after METHOD] [--warm-file FILE] [--late-answer result|32022|32601] [--name N]
//   [--tools a,b] [--record FILE]
// --discover-delay-ms answers the first discover N ms after it arrived; --hold-discover-until answers it just
// before the answer to the first METHOD request (an answer that comes only after the client moved on), and
// --answer-discover-after just after it: late by construction, however slow the machine, with no timer.
// --warm-file: when FILE exists the start is warm and nothing is held; the first launch creates it.
// --late-answer: what the first discover gets (a DiscoverResult, -32022 listing 2026-07-28, or -32601).
// Every message received is recorded with --record; at the end of stdin it records `<eof>`, so a reader
// knows nothing more arrived. SIGTERM waits for the end of stdin, so the record is complete.
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    'discover-delay-ms': { type: 'string', default: '0' },
    'hold-discover-until': { type: 'string' },
    'answer-discover-after': { type: 'string' },
    'warm-file': { type: 'string' },
    'late-answer': { type: 'string', default: 'result' },
    name: { type: 'string', default: 'erawatch-peer-late-discover' },
    version: { type: 'string', default: '1.0.0' },
    tools: { type: 'string', default: 'echo' },
    record: { type: 'string' },
  },
});

const warm = values['warm-file'] ? existsSync(values['warm-file']) : false;
if (values['warm-file'] && !warm) writeFileSync(values['warm-file'], String(process.pid));
const delayMs = warm ? 0 : Number(values['discover-delay-ms']);
const holdUntil = warm ? undefined : values['hold-discover-until'];
const answerAfter = warm ? undefined : values['answer-discover-after'];
const serverInfo = { name: values.name, version: values.version };
const tools = String(values.tools)
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);

function record(method, id) {
  if (!values.record) return;
  appendFileSync(values.record, JSON.stringify({ method, id, pid: process.pid }) + '\n');
}

function write(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

function discoverResult(id) {
  return {
    jsonrpc: '2.0',
    id,
    result: {
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: {} },
      resultType: 'complete',
      ttlMs: 0,
      cacheScope: 'private',
      _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo },
    },
  };
}

/** The answer to the first discover, the one that comes late. */
function firstDiscoverAnswer(id, requested) {
  if (values['late-answer'] === '32601')
    return { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } };
  if (values['late-answer'] === '32022')
    return {
      jsonrpc: '2.0',
      id,
      error: {
        code: -32022,
        message: `Unsupported protocol version: ${requested}`,
        data: { supported: ['2026-07-28'], requested },
      },
    };
  return discoverResult(id);
}

let discoverSeen = false;
let heldDiscover = null;

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    record('<unparsable>', null);
    return;
  }
  const method = typeof message?.method === 'string' ? message.method : null;
  const id = message?.id ?? null;
  record(method, id);
  if (heldDiscover && method === holdUntil) releaseDiscover();
  if (id !== null) answer(message, method, id);
  if (heldDiscover && method === answerAfter) releaseDiscover();
});

function releaseDiscover() {
  write(heldDiscover);
  heldDiscover = null;
}

function answer(message, method, id) {
  if (method === 'server/discover') {
    const first = !discoverSeen;
    discoverSeen = true;
    const requested = message.params?._meta?.['io.modelcontextprotocol/protocolVersion'] ?? 'unknown';
    const reply = first ? firstDiscoverAnswer(id, requested) : discoverResult(id);
    if (first && (holdUntil || answerAfter)) heldDiscover = reply;
    else if (first && delayMs > 0) setTimeout(() => write(reply), delayMs);
    else write(reply);
  } else if (method === 'initialize') {
    write({
      jsonrpc: '2.0',
      id,
      result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo },
    });
  } else if (method === 'tools/list') {
    write({
      jsonrpc: '2.0',
      id,
      result: { tools: tools.map((name) => ({ name, inputSchema: { type: 'object' } })) },
    });
  } else {
    write({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
  }
}

lines.on('close', () => {
  record('<eof>', null);
  process.exit(0);
});
process.on('SIGTERM', () => {
  // The end of stdin follows; exiting there keeps the record complete.
});
