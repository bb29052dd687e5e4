// A real v2 SDK MCP server over Streamable HTTP.
// node v2-http.mjs --port 0 [--host 127.0.0.1] [--mode dual|modern] [--name NAME] [--version V] [--tools a,b]
// "dual" is the SDK default (modern 2026-07-28 plus a stateless legacy fallback); "modern" rejects legacy.
// Prints one JSON line {"port":N} on stdout once listening.
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import * as z from 'zod';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    mode: { type: 'string', default: 'dual' },
    name: { type: 'string', default: '' },
    version: { type: 'string', default: '2.4.0' },
    tools: { type: 'string', default: 'echo' },
  },
});
if (values.mode !== 'dual' && values.mode !== 'modern') {
  console.error(`unknown mode ${values.mode}`);
  process.exit(2);
}
const name = values.name || `erawatch-peer-v2-${values.mode}`;

// Every request the server saw, by era (and method, when the request names it in Mcp-Method), so tests can
// assert on the server side what a probe sent.
const received = [];
// The tool catalog; POST /__erawatch/tools replaces it, as a new build would.
let tools = values.tools.split(',').filter((t) => t !== '');
const factory = (ctx) => {
  received.push({ era: ctx?.era ?? null, method: ctx?.requestInfo?.headers?.get('mcp-method') ?? null });
  const server = new McpServer({ name, version: values.version }, { instructions: 'Erawatch peer.' });
  for (const tool of tools) {
    server.registerTool(
      tool,
      {
        description: tool === 'echo' ? 'Echo the given text' : `The ${tool} tool`,
        inputSchema: z.object({ text: z.string() }),
      },
      async ({ text }) => ({ content: [{ type: 'text', text }] }),
    );
  }
  return server;
};

const handler = createMcpHandler(factory, { legacy: values.mode === 'dual' ? 'stateless' : 'reject' });
const mcp = toNodeHandler(handler);
const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/__erawatch/received') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ received }));
    return;
  }
  if (req.method === 'POST' && req.url === '/__erawatch/tools') {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      tools = JSON.parse(text).tools;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ tools }));
    });
    return;
  }
  void mcp(req, res);
});
server.listen(Number(values.port), values.host, () => {
  const address = server.address();
  console.log(JSON.stringify({ port: typeof address === 'object' && address ? address.port : null }));
});
process.on('SIGTERM', () => {
  // Keep-alive connections from a probe would otherwise hold close() open until they time out.
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
