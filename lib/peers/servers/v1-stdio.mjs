// A real legacy (handshake-era) v1 SDK MCP server (@modelcontextprotocol/sdk 1.32.2) over stdio: the
// archive server that understands only `initialize`.
// node v1-stdio.mjs [--name N] [--version V] [--tools echo,fetch] [--init-delay-ms N] [--record FILE]
// --init-delay-ms holds `initialize` for N ms (a handshake that outlives the client's deadline).
import { parseArgs } from 'node:util';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { splitList, wrapTransport } from './common-stdio.mjs';

const { values } = parseArgs({
  options: {
    name: { type: 'string', default: 'erawatch-peer-v1-stdio' },
    version: { type: 'string', default: '1.32.2' },
    tools: { type: 'string', default: 'echo' },
    'init-delay-ms': { type: 'string', default: '0' },
    record: { type: 'string' },
  },
});

const server = new McpServer(
  { name: values.name, version: values.version },
  { instructions: 'Erawatch archive peer.' },
);
for (const tool of splitList(values.tools)) {
  server.registerTool(
    tool,
    { description: `${tool} from ${values.name}`, inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
}
const delay = Number(values['init-delay-ms']);
const transport = wrapTransport(new StdioServerTransport(), {
  recordPath: values.record,
  holdMethods: delay > 0 ? { initialize: delay } : {},
});
await server.connect(transport);
