// A hostile server's strings in the text output of `erawatch probe` and `erawatch host-check`: escapes,
// newlines, the clipboard's OSC 52, C1 controls and bidi overrides are shown as escapes, never sent to the
// terminal, so no server can rewrite or forge a report line. `--json` keeps the strings as the server sent
// them (JSON escapes them). A probe that ends in ambiguous_not_allowlisted after -32601 says what to do.
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import {
  discoverResult,
  rpcError,
  rpcOf,
  sendJson,
  startFaultPeer,
  type FaultPeer,
} from '@/tests/support/fault-peer';
import { cliEntry, makeTempDir } from '../host-check/fixtures';

// Cursor up, erase line, carriage return: what would overwrite an earlier line with a forged one.
const OVERWRITE = '\u001b[1A\u001b[2K\r';
const CLIPBOARD = '\u001b]52;c;ZWNobyBwd25lZA==\u0007';
const NAME = `${OVERWRITE}http://x: modern (2026-07-28), reason discover_result\n  forged: yes`;
const VERSION = `1.0${CLIPBOARD}\u009b31m`;
const TOOL = `\u202eexe.txt\u2066\u0000\u007f`;
const MESSAGE = `Method not found${OVERWRITE}node: modern (2026-07-28)\r\n`;

// Every character the text output must never carry raw (a newline only between our own lines).
const RAW_CONTROL =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const tmp = makeTempDir('terminal-output');
let modern: FaultPeer;
let notFound: FaultPeer;

beforeAll(async () => {
  modern = await startFaultPeer((req, res) => {
    const { method, id } = rpcOf(req);
    if (method === 'server/discover') {
      const answer = discoverResult(id);
      const result = answer.result as Record<string, unknown>;
      result._meta = { 'io.modelcontextprotocol/serverInfo': { name: NAME, version: VERSION } };
      return sendJson(res, 200, answer);
    }
    if (method === 'tools/list')
      return sendJson(res, 200, {
        jsonrpc: '2.0',
        id,
        result: { tools: [{ name: TOOL, inputSchema: { type: 'object' } }] },
      });
    res.writeHead(202).end();
  });
  notFound = await startFaultPeer((req, res) => {
    const { id } = rpcOf(req);
    sendJson(res, 404, rpcError(id, -32601, MESSAGE));
  });
});
afterAll(async () => {
  await Promise.all([modern?.close(), notFound?.close()]);
  tmp.remove();
});

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cliEntry, ...args], { timeout: 100_000 }, (err, stdout, stderr) => {
      const code = err && typeof err.code === 'number' ? err.code : err ? -1 : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('server strings in text output', () => {
  it('erawatch probe shows serverInfo and tool names with their control characters escaped', async () => {
    const { code, stdout } = await cli(['probe', modern.url, '--catalog']);
    expect(code).toBe(0);
    expect(stdout).not.toMatch(RAW_CONTROL);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`${modern.url}: modern (2026-07-28), reason discover_result`);
    // The server's newline stays inside its line: no line of the report is the server's.
    expect(lines.filter((l) => l.includes('forged'))).toEqual([
      '  server: \\x1b[1A\\x1b[2K\\x0dhttp://x: modern (2026-07-28), reason discover_result\\x0a  forged: yes 1.0\\x1b]52;c;ZWNobyBwd25lZA==\\x07\\x9b31m',
    ]);
    expect(stdout).toContain('  tools: \\u202eexe.txt\\u2066\\x00\\x7f (');

    // --json is unchanged: the strings exactly as the server sent them.
    const json = await cli(['probe', modern.url, '--catalog', '--json']);
    const out = JSON.parse(json.stdout) as { serverInfo: unknown; catalog: { names: string[] } };
    expect(out.serverInfo).toEqual({ name: NAME, version: VERSION });
    expect(out.catalog.names).toEqual([TOOL]);
  });

  it('an error message cannot overwrite the unavailable line; -32601 points at --allow-legacy', async () => {
    const { code, stdout } = await cli(['probe', notFound.url]);
    expect(code).toBe(1);
    expect(stdout).not.toMatch(RAW_CONTROL);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`${notFound.url}: unavailable, reason ambiguous_not_allowlisted`);
    expect(lines.filter((l) => l.includes('modern (2026-07-28)'))).toHaveLength(1);
    expect(stdout).toContain(
      '-32601 Method not found\\x1b[1A\\x1b[2K\\x0dnode: modern (2026-07-28)\\x0d\\x0a',
    );
    // What to do, and why the default fails closed.
    const next = stdout.slice(stdout.indexOf('  next:'));
    expect(next).toContain('run again with --allow-legacy');
    expect(next).toContain('fails closed');
    expect(next).toContain('is not proof of a legacy server');

    // A node that answers nothing at all (a closed port) gets no such advice: -32601 was not seen.
    const closed = await cli(['probe', 'http://127.0.0.1:9/mcp', '--timeout-ms', '2000']);
    expect(closed.stdout).not.toContain('--allow-legacy');
  });

  it('erawatch host-check escapes the server strings in its table', async () => {
    const file = tmp.write(
      'hostile.yaml',
      stringify({ collisionPolicy: 'reject', servers: [{ name: 'hostile', url: modern.url }] }),
    );
    const { code, stdout } = await cli(['host-check', file]);
    expect(code).toBe(0);
    expect(stdout).not.toMatch(RAW_CONTROL);
    const row = stdout.split('\n').find((l) => l.startsWith('hostile '));
    expect(row).toContain('\\u202eexe.txt\\u2066\\x00\\x7f');
    const json = await cli(['host-check', file, '--json']);
    expect((JSON.parse(json.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual([
      TOOL,
    ]);
  });
});
