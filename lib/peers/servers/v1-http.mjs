// A real legacy (handshake-era) v1 SDK MCP server over Streamable HTTP.
// node v1-http.mjs --port 0 [--host 127.0.0.1] [--mode stateful|stateless] [--name NAME] [--version V] [--tools a,b]
// "stateful" mints Mcp-Session-Id; "stateless" builds a server and transport per POST.
// Prints one JSON line {"port":N} on stdout once listening.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import express from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    mode: { type: 'string', default: 'stateful' },
    name: { type: 'string', default: '' },
    version: { type: 'string', default: '1.32.2' },
    tools: { type: 'string', default: 'echo' },
  },
});
if (values.mode !== 'stateful' && values.mode !== 'stateless') {
  console.error(`unknown mode ${values.mode}`);
  process.exit(2);
}
const name = values.name || `erawatch-peer-v1-${values.mode}`;

// The tool catalog; POST /__erawatch/tools replaces it (for sessions opened afterwards), as a new build would.
let tools = values.tools.split(',').filter((t) => t !== '');
function makeServer() {
  const server = new McpServer({ name, version: values.version }, { instructions: 'Erawatch peer.' });
  for (const tool of tools) {
    server.registerTool(
      tool,
      {
        description: tool === 'echo' ? 'Echo the given text' : `The ${tool} tool`,
        inputSchema: { text: z.string() },
      },
      async ({ text }) => ({
        content: [{ type: 'text', text }],
      }),
    );
  }
  return server;
}

const app = express();
app.use(express.json({ limit: '4mb' }));
// Every JSON-RPC method the server saw, so tests can assert on the server side what a probe sent.
const received = [];
app.use((req, _res, next) => {
  if (req.method === 'POST')
    received.push({ method: typeof req.body?.method === 'string' ? req.body.method : null });
  else if (req.method === 'DELETE') received.push({ httpMethod: 'DELETE' });
  next();
});
app.get('/__erawatch/received', (_req, res) => res.json({ received }));
app.post('/__erawatch/tools', (req, res) => {
  tools = req.body.tools;
  res.json({ tools });
});

if (values.mode === 'stateless') {
  app.post('/mcp', async (req, res) => {
    const server = makeServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
} else {
  const transports = new Map();
  app.all('/mcp', async (req, res) => {
    const sid = req.headers['mcp-session-id'];
    let transport = typeof sid === 'string' ? transports.get(sid) : undefined;
    if (!transport && req.method === 'POST' && !sid && isInitializeRequest(req.body)) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, created),
      });
      created.onclose = () => {
        if (created.sessionId) transports.delete(created.sessionId);
      };
      await makeServer().connect(created);
      transport = created;
    }
    if (!transport) {
      res.status(400).json({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Bad Request: No valid session ID provided' },
        id: null,
      });
      return;
    }
    await transport.handleRequest(req, res, req.body);
  });
  // Lets tests assert how many legacy sessions are still open (the probe must DELETE what it opens).
  app.get('/sessions', (_req, res) => res.json({ open: transports.size }));
}

const server = app.listen(Number(values.port), values.host, () => {
  const address = server.address();
  console.log(JSON.stringify({ port: typeof address === 'object' && address ? address.port : null }));
});
process.on('SIGTERM', () => {
  // Keep-alive connections from a probe would otherwise hold close() open until they time out.
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
