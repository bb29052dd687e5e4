// A stdio server that forks a grandchild holding its stdout (and ignoring SIGTERM): the probe ends the whole
// process group, and `erawatch probe --stdio` exits once it has printed its verdict.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { probeNode } from '@/lib/probe/probe-node';
import { StdioTransport } from '@/lib/probe/stdio-transport';
import { DEFAULT_PROBE_OPTIONS } from '@/lib/probe/types';
import { isAlive, makeTempDir, peerScript } from '../host-check/fixtures';

const BIN = path.resolve(__dirname, '../../../bin/erawatch.mjs');
const tmp = makeTempDir('stdio-grandchild');
const started: number[] = [];
afterAll(() => {
  // A safety net only: on failure nothing forked here is left behind.
  for (const pid of started) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  tmp.remove();
});

async function grandchildOf(pidFile: string): Promise<number> {
  for (let i = 0; i < 2_000 && !existsSync(pidFile); i++) await new Promise((r) => setImmediate(r));
  const pid = Number(readFileSync(pidFile, 'utf8'));
  started.push(pid);
  return pid;
}

/** Waits (bounded, as a safety net) for the process to be gone. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 400 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 25));
  return !isAlive(pid);
}

describe('a stdio server with a grandchild', () => {
  it('close ends the process group: the grandchild that ignores SIGTERM is killed', async () => {
    const pidFile = tmp.file('transport.pid');
    const t = StdioTransport.launch(
      { command: process.execPath, args: [peerScript('v2-stdio'), '--fork-grandchild', pidFile] },
      { killGraceMs: 500 },
    );
    const options = { ...DEFAULT_PROBE_OPTIONS, timeoutMs: 30_000, legacyProbeTimeoutMs: 30_000 };
    const v = await probeNode({ url: 'stdio:grandchild' }, options, { transport: t });
    expect(v.verdict).toBe('modern');
    const grandchild = await grandchildOf(pidFile);
    expect(isAlive(grandchild)).toBe(true);
    await t.close();
    expect(await gone(grandchild)).toBe(true);
  }, 60_000);

  it('erawatch probe --stdio prints its verdict and exits, the grandchild gone with it', async () => {
    const pidFile = tmp.file('cli.pid');
    const res = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [
          BIN,
          'probe',
          '--stdio',
          '--json',
          '--',
          process.execPath,
          peerScript('v2-stdio'),
          '--fork-grandchild',
          pidFile,
        ],
        // Only a safety net: the CLI must exit on its own long before.
        { timeout: 50_000 },
        (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr }),
      );
    });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ verdict: 'modern' });
    const grandchild = await grandchildOf(pidFile);
    expect(await gone(grandchild)).toBe(true);
  }, 60_000);
});
