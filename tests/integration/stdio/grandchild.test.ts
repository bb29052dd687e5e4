// A stdio server that forks a grandchild holding its stdout (and ignoring SIGTERM): the probe ends the whole
// process group, and `erawatch probe --stdio` exits once it has printed its verdict. A grandchild that called
// setsid() has left the group: on Linux it is found through /proc and ended too.
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

  it.skipIf(process.platform !== 'linux')(
    'a grandchild that called setsid (another session and group) is ended with the probe, in-process and from the CLI',
    async () => {
      const pidFile = tmp.file('setsid.pid');
      const t = StdioTransport.launch(
        {
          command: process.execPath,
          args: [peerScript('v2-stdio'), '--fork-setsid-grandchild', pidFile],
        },
        { killGraceMs: 500 },
      );
      const options = { ...DEFAULT_PROBE_OPTIONS, timeoutMs: 30_000, legacyProbeTimeoutMs: 30_000 };
      const v = await probeNode({ url: 'stdio:setsid' }, options, { transport: t });
      expect(v.verdict).toBe('modern');
      const grandchild = await grandchildOf(pidFile);
      expect(isAlive(grandchild)).toBe(true);
      // It really left: its own session and process group, not the server's.
      expect(sessionAndGroup(grandchild)).toEqual([grandchild, grandchild]);
      expect(sessionAndGroup(grandchild)).not.toEqual(sessionAndGroup(t.pid ?? 0));
      await t.close();
      expect(await gone(grandchild)).toBe(true);

      const cliPidFile = tmp.file('setsid-cli.pid');
      const code = await new Promise<number | null>((resolve) => {
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
            '--fork-setsid-grandchild',
            cliPidFile,
          ],
          { timeout: 50_000 },
          (err) => resolve(err ? ((err as { code?: number }).code ?? null) : 0),
        );
      });
      expect(code).toBe(0);
      expect(await gone(await grandchildOf(cliPidFile))).toBe(true);
    },
    60_000,
  );
});

/** Fields 6 and 5 of /proc/<pid>/stat: the session and the process group. */
function sessionAndGroup(pid: number): [number, number] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [Number(rest[3]), Number(rest[2])];
}
