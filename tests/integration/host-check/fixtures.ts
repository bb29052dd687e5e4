// Shared by the stdio and host-check tests: where the stdio peers live, a temp dir per test file for
// record files and host files, and readers for what each peer process received.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const serversDir = path.join(repoRoot, 'lib/peers/servers');
export const cliEntry = path.join(repoRoot, 'bin/erawatch.mjs');

export function peerScript(
  name: 'v2-stdio' | 'v1-stdio' | 'fault-stdio' | 'late-discover-stdio' | 'rolling-stdio',
): string {
  return path.join(serversDir, `${name}.mjs`);
}

export interface Received {
  method: string | null;
  id: string | number | null;
  pid: number;
}

/** What a peer recorded with --record, in arrival order (empty when it recorded nothing). */
export function readRecord(file: string): Received[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Received);
}

export function methodsOf(file: string): Array<string | null> {
  return readRecord(file).map((r) => r.method);
}

export function makeTempDir(prefix: string): {
  dir: string;
  file(name: string): string;
  write(name: string, text: string): string;
  remove(): void;
} {
  const dir = mkdtempSync(path.join(tmpdir(), `erawatch-${prefix}-`));
  return {
    dir,
    file: (name) => path.join(dir, name),
    write(name, text) {
      const target = path.join(dir, name);
      writeFileSync(target, text);
      return target;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** True while a process with this pid exists. */
export function isAlive(pid: number): boolean {
  // Never 0 or negative: those address process groups, not one process.
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`not a process id: ${pid}`);
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls until the process is gone; bounded so a failing test fails fast. */
export async function waitForExit(pid: number, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} still alive after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Per process, in launch order: the methods each pid received (`<eof>` last once it read all its input). */
export function methodsByPid(file: string): Array<{ pid: number; methods: Array<string | null> }> {
  const byPid = new Map<number, Array<string | null>>();
  for (const r of readRecord(file)) {
    const list = byPid.get(r.pid) ?? [];
    list.push(r.method);
    byPid.set(r.pid, list);
  }
  return [...byPid].map(([pid, methods]) => ({ pid, methods }));
}

/** Waits (bounded) until the record holds at least `count` entries: a written notification is read asynchronously. */
export async function waitForRecord(file: string, count: number, timeoutMs = 5_000): Promise<Received[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const seen = readRecord(file);
    if (seen.length >= count || Date.now() > deadline) return seen;
    await new Promise((r) => setTimeout(r, 25));
  }
}
