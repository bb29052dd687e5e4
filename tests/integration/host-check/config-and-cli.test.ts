// host.yaml validation (every bad file is refused with its file, line and field, and nothing runs) and the
// `erawatch host-check` command's output and exit status, through the real CLI entry.
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { HostConfigError, loadHostConfig, parseHostConfig } from '@/lib/host-check/config';
import { cliEntry, makeTempDir, peerScript } from './fixtures';

const tmp = makeTempDir('host-config');
afterAll(() => tmp.remove());

const v2 = JSON.stringify(peerScript('v2-stdio'));
const node = JSON.stringify(process.execPath);

function expectIssues(text: string, expected: Array<[number, string, string]>) {
  let caught: unknown;
  try {
    parseHostConfig(text, 'host.yaml');
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(HostConfigError);
  const issues = (caught as HostConfigError).issues.map((i) => [i.line, i.field, i.message]);
  expect(issues).toEqual(expected);
  for (const [line, field] of expected) {
    expect((caught as HostConfigError).message).toContain(`host.yaml:${line}:`);
    if (field) expect((caught as HostConfigError).message).toContain(`: ${field}: `);
  }
}

describe('host.yaml validation', () => {
  it.each<[string, string, Array<[number, string, string]>]>([
    [
      'no collision policy',
      'servers:\n  - name: a\n    command: node\n',
      [[1, 'collisionPolicy', 'must be prefix or reject']],
    ],
    [
      'an unknown policy',
      'collisionPolicy: overwrite\nservers:\n  - name: a\n    command: node\n',
      [[1, 'collisionPolicy', 'must be prefix or reject']],
    ],
    [
      'no servers',
      'collisionPolicy: prefix\nservers: []\n',
      [[2, 'servers', 'must list at least one server']],
    ],
    [
      'both command and url',
      'collisionPolicy: prefix\nservers:\n  - name: a\n    command: node\n    url: http://127.0.0.1:1/mcp\n',
      [[4, 'servers[0].command', 'give exactly one of command (stdio) or url (HTTP)']],
    ],
    [
      'neither command nor url',
      'collisionPolicy: prefix\nservers:\n  - name: a\n    allowLegacy: true\n',
      [[3, 'servers[0].command', 'give exactly one of command (stdio) or url (HTTP)']],
    ],
    [
      'a url that is not http(s)',
      'collisionPolicy: prefix\nservers:\n  - name: a\n    url: file:///etc/passwd\n',
      [[4, 'servers[0].url', 'must be an http:// or https:// URL']],
    ],
    [
      'a slash in a server name',
      'collisionPolicy: prefix\nservers:\n  - name: a/b\n    command: node\n',
      [[3, 'servers[0].name', 'must be 1-64 letters, digits, dots, dashes or underscores']],
    ],
    [
      'a duplicate server name',
      'collisionPolicy: prefix\nservers:\n  - name: a\n    command: node\n  - name: a\n    command: node\n',
      [[5, 'servers[1].name', 'duplicates the name of servers[0]']],
    ],
    [
      'a timeout below the floor',
      'collisionPolicy: prefix\nservers:\n  - name: a\n    command: node\n    timeoutMs: 10\n',
      [[5, 'servers[0].timeoutMs', 'must be at least 50']],
    ],
    [
      'a retry policy with zero attempts',
      'collisionPolicy: prefix\nservers:\n  - name: a\n    command: node\n    retry:\n      attempts: 0\n',
      [[6, 'servers[0].retry.attempts', 'must be at least 1']],
    ],
    [
      'allowLegacy as a string',
      'collisionPolicy: prefix\nservers:\n  - name: a\n    command: node\n    allowLegacy: "yes"\n',
      [[5, 'servers[0].allowLegacy', 'must be true or false']],
    ],
    [
      'an unknown field',
      'collisionPolicy: prefix\nservers:\n  - name: a\n    command: node\n    alowLegacy: true\n',
      [[5, 'servers[0].alowLegacy', 'unknown field alowLegacy']],
    ],
    [
      'args on an HTTP server',
      'collisionPolicy: prefix\nservers:\n  - name: a\n    url: http://127.0.0.1:1/mcp\n    args: [x]\n',
      [[5, 'servers[0].args', 'applies only to a stdio command']],
    ],
    [
      'an environment variable with a bad name',
      'collisionPolicy: prefix\nservers:\n  - name: a\n    command: node\n    env: { "BAD-NAME": x }\n',
      [[5, 'servers[0].env.BAD-NAME', 'must be an environment variable name']],
    ],
    [
      'a modern revision that is not a date',
      'collisionPolicy: prefix\nmodernVersions: [latest]\nservers:\n  - name: a\n    command: node\n',
      [[2, 'modernVersions[0]', 'must be a revision date like 2025-11-25']],
    ],
    [
      'broken YAML',
      'collisionPolicy: prefix\nservers: [\n',
      [[3, '', 'Flow sequence in block collection must be sufficiently indented and end with a ]']],
    ],
    [
      'a duplicate key',
      'collisionPolicy: prefix\ncollisionPolicy: reject\nservers: []\n',
      [[2, '', 'Map keys must be unique']],
    ],
    ['not a mapping', '- a\n- b\n', [[1, '', 'must be a mapping with collisionPolicy and servers']]],
  ])('%s', (_label, text, expected) => {
    expectIssues(text, expected);
  });

  it('names the file when it cannot be read', async () => {
    const missing = tmp.file('missing.yaml');
    await expect(loadHostConfig(missing)).rejects.toThrow(`${missing}: cannot read the file (ENOENT)`);
  });

  it('resolves cwd against the file and keeps argv as given', async () => {
    const file = tmp.write(
      'cwd.yaml',
      `collisionPolicy: reject\nservers:\n  - name: a\n    command: node\n    args: ["x y", z]\n    cwd: sub\n`,
    );
    const config = await loadHostConfig(file);
    expect(config.servers[0]).toMatchObject({
      kind: 'stdio',
      command: 'node',
      args: ['x y', 'z'],
      cwd: `${tmp.dir}/sub`,
      allowLegacy: false,
      retry: { attempts: 5 },
    });
  });
});

function runCli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliEntry, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

describe('erawatch host-check', () => {
  it('prints the table and exits 0 when every server became available', async () => {
    const file = tmp.write(
      'ok.yaml',
      `collisionPolicy: prefix\nservers:\n  - name: current\n    command: ${node}\n    args: [${v2}, --tools, 'echo,search']\n`,
    );
    const out = await runCli(['host-check', file]);
    expect(out.status).toBe(0);
    expect(out.stdout).toMatch(/^SERVER\s+ERA\s+VERSION\s+REASON\s+TOOLS$/m);
    expect(out.stdout).toMatch(/^current\s+modern\s+2026-07-28\s+discover_result\s+echo, search$/m);
    expect(out.stdout).toContain('1 of 1 servers available');
  });

  it('--json prints one report object and exits 1 when a server stayed unavailable', async () => {
    const file = tmp.write(
      'partial.yaml',
      `collisionPolicy: prefix\nservers:\n  - name: current\n    command: ${node}\n    args: [${v2}]\n  - name: gone\n    command: ${node}\n    args: [${JSON.stringify(peerScript('fault-stdio'))}, --fault, exit]\n    retry: { attempts: 1 }\n`,
    );
    const out = await runCli(['host-check', file, '--json']);
    expect(out.status).toBe(1);
    const report = JSON.parse(out.stdout) as {
      ok: boolean;
      servers: Array<{ name: string; era: string; reason: string }>;
    };
    expect(report.ok).toBe(false);
    expect(report.servers.map((s) => [s.name, s.era, s.reason])).toEqual([
      ['current', 'modern', 'discover_result'],
      ['gone', 'unavailable', 'process_exited'],
    ]);
  });

  it.each([
    [['host-check'], 'missing host.yaml'],
    [['host-check', 'a.yaml', 'b.yaml'], "unexpected argument 'b.yaml'"],
    [['host-check', 'a.yaml', '--jsn'], "Unknown option '--jsn'"],
  ])('usage error %j exits 2', async (args, message) => {
    const out = await runCli(args);
    expect(out.status).toBe(2);
    expect(out.stderr).toContain(message);
    expect(out.stdout).toBe('');
  });

  it('an invalid file exits 2 naming the file, line and field, and launches nothing', async () => {
    const marker = tmp.file('never-created');
    const file = tmp.write(
      'bad.yaml',
      `collisionPolicy: prefix\nservers:\n  - name: a\n    command: ${node}\n    args: ['-e', 'require("fs").writeFileSync(${JSON.stringify(marker)}, "ran")']\n    timeoutMs: nope\n`,
    );
    const out = await runCli(['host-check', file]);
    expect(out.status).toBe(2);
    expect(out.stderr).toContain(
      `${file}:6:16: servers[0].timeoutMs: must be a whole number of milliseconds`,
    );
    const { existsSync } = await import('node:fs');
    expect(existsSync(marker)).toBe(false);
  });
});
