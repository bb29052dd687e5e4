// A real `erawatch worker` process for tests: started from the source tree with the given environment on top
// of the test's, its stdout and stderr kept for assertions and failure messages.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  /** Everything the worker printed so far, stdout and stderr interleaved. */
  output: () => string;
  exited: Promise<void>;
  /** Still running (not exited, not killed). */
  alive: () => boolean;
}

/** Starts `erawatch worker --roles <roles>` with `env` added to this process's environment. */
export function startWorkerProcess(env: Record<string, string>, roles = 'poll'): WorkerProcess {
  const child = spawn(process.execPath, [path.join(root, 'bin/erawatch.mjs'), 'worker', '--roles', roles], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  if (!child.pid) throw new Error('worker did not start');
  return {
    child,
    pid: child.pid,
    output: () => out,
    exited,
    alive: () => child.exitCode === null && child.signalCode === null,
  };
}
