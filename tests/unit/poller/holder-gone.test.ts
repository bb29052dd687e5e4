// A poll holder on this host is gone when its pid is, or when only its zombie is left: a worker killed with
// kill -9 under a parent that does not reap it (an init-less container's first process) still answers kill 0.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { holderGoneOnThisHost } from '@/lib/poller/lease';

const started: ChildProcess[] = [];
afterEach(() => {
  for (const c of started.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

function stateOf(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return null;
  }
}

describe.runIf(process.platform === 'linux')('holderGoneOnThisHost', () => {
  it('is false for a live process, and true once it is only a zombie, and once it is gone', async () => {
    // A parent that forks a sleep, prints its pid, and reaps it only when its stdin ends (perl is part of
    // every Debian system).
    const parent = spawn(
      'perl',
      [
        '-e',
        '$| = 1; my $p = fork(); if (!$p) { exec "sleep", "600" } print "$p\\n"; <STDIN>; waitpid($p, 0);',
      ],
      { stdio: ['pipe', 'pipe', 'ignore'] },
    );
    started.push(parent);
    const pid = await new Promise<number>((resolve) => {
      parent.stdout?.once('data', (d: Buffer) => resolve(Number(String(d).trim())));
    });
    const here = os.hostname();
    expect(holderGoneOnThisHost({ hostname: here, pid })).toBe(false);
    expect(holderGoneOnThisHost({ hostname: 'another-host', pid })).toBe(false);
    process.kill(pid, 'SIGKILL');
    await vi.waitFor(() => expect(stateOf(pid)).toBe('Z'));
    expect(() => process.kill(pid, 0)).not.toThrow();
    expect(holderGoneOnThisHost({ hostname: here, pid })).toBe(true);
    // The parent reaps it: no such pid at all.
    const exited = new Promise((resolve) => parent.once('exit', resolve));
    parent.stdin?.end();
    await exited;
    expect(stateOf(pid)).toBeNull();
    expect(holderGoneOnThisHost({ hostname: here, pid })).toBe(true);
    expect(holderGoneOnThisHost({ hostname: here, pid: process.pid })).toBe(false);
  });
});
