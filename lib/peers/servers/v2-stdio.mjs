// A real v2 SDK MCP server (@modelcontextprotocol/server 2.4.0) over stdio, as an agent host launches it.
// node v2-stdio.mjs [--name N] [--version V] [--tools echo,search] [--legacy serve|reject]
//   [--slow-first-ms N] [--hold-until-requests N] [--chatter] [--record FILE] [--fork-grandchild PIDFILE]
//   [--fork-setsid-grandchild PIDFILE]
// --slow-first-ms holds every request until N ms after the first one arrived (a server slow to start);
// --hold-until-requests holds everything until the Nth request arrived (slow until the client retried);
// --chatter logs each message to stderr; --record appends every received method to FILE;
// --fork-grandchild forks a process that ignores SIGTERM and holds this server's stdout, its pid in PIDFILE;
// --fork-setsid-grandchild does the same from a new session (setsid): it leaves the process group.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';
import { logLine, splitList, wrapTransport } from './common-stdio.mjs';

const { values } = parseArgs({
  options: {
    name: { type: 'string', default: 'erawatch-peer-v2-stdio' },
    version: { type: 'string', default: '2.4.0' },
    tools: { type: 'string', default: 'echo' },
    legacy: { type: 'string', default: 'serve' },
    'slow-first-ms': { type: 'string', default: '0' },
    'hold-until-requests': { type: 'string', default: '0' },
    chatter: { type: 'boolean', default: false },
    record: { type: 'string' },
    'fork-grandchild': { type: 'string' },
    'fork-setsid-grandchild': { type: 'string' },
  },
});
if (values['fork-grandchild']) {
  // Inherits stdout (the probe's pipe) and outlives a SIGTERM: only its process group's SIGKILL ends it.
  const grandchild = spawn(
    process.execPath,
    ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 60000);"],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  writeFileSync(values['fork-grandchild'], String(grandchild.pid));
}
if (values['fork-setsid-grandchild']) {
  // detached: the grandchild calls setsid(), so a signal to this server's process group misses it.
  const grandchild = spawn(
    process.execPath,
    ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 60000);"],
    { stdio: ['ignore', 'inherit', 'inherit'], detached: true },
  );
  writeFileSync(values['fork-setsid-grandchild'], String(grandchild.pid));
}
if (values.legacy !== 'serve' && values.legacy !== 'reject') {
  console.error(`unknown legacy mode ${values.legacy}`);
  process.exit(2);
}
const tools = splitList(values.tools);
if (values.chatter) logLine(`${values.name} starting; tools: ${tools.join(', ')}`);

const inner = new StdioServerTransport();
const transport = wrapTransport(inner, {
  recordPath: values.record,
  holdFirstMs: Number(values['slow-first-ms']),
  holdUntilRequests: Number(values['hold-until-requests']),
});
if (values.chatter) {
  const send = transport.send;
  transport.send = (message, options) => {
    logLine(`answered id ${message?.id ?? '-'}`);
    return send(message, options);
  };
}

serveStdio(
  () => {
    const server = new McpServer(
      { name: values.name, version: values.version },
      { instructions: 'Erawatch stdio peer.' },
    );
    for (const tool of tools) {
      server.registerTool(
        tool,
        { description: `${tool} from ${values.name}`, inputSchema: z.object({ text: z.string() }) },
        async ({ text }) => ({ content: [{ type: 'text', text }] }),
      );
    }
    return server;
  },
  {
    legacy: values.legacy,
    transport,
    onerror: (error) => logLine(`error: ${error.message}`),
  },
);
