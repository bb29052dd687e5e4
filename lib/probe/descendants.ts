// The processes a stdio command started, found through /proc (Linux): a descendant that called setsid()
// has left the command's process group, so signalling the group misses it; its parent chain still leads
// to the command. Each process is remembered with its start time, so a pid the kernel has since given to
// another process is never signalled. Elsewhere (no /proc) there is nothing to find: only the group is
// ended. See docs/probe.md, "What ends with a stdio command".
import fs from 'node:fs';

export interface ProcessRef {
  pid: number;
  /** Start time in clock ticks since boot (field 22 of /proc/<pid>/stat): the pid's identity over time. */
  start: string;
}

interface StatLine {
  ppid: number;
  start: string;
  state: string;
}

function readStat(pid: number): StatLine | null {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) may hold spaces and parentheses: the fields after it follow the last ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const [state, ppid] = rest;
  const start = rest[19];
  if (state === undefined || ppid === undefined || start === undefined) return null;
  return { state, ppid: Number(ppid), start };
}

/** Whether process tracking is available here. */
export const CAN_TRACK = process.platform === 'linux' && fs.existsSync('/proc/self/stat');

/** Every live process whose parent chain reaches one of `roots` (roots excluded); [] without /proc. */
export function descendantsOf(roots: Iterable<number>): ProcessRef[] {
  if (!CAN_TRACK) return [];
  const children = new Map<number, ProcessRef[]>();
  let names: string[];
  try {
    names = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const stat = readStat(pid);
    if (!stat || stat.state === 'Z' || stat.state === 'X') continue;
    const list = children.get(stat.ppid) ?? [];
    list.push({ pid, start: stat.start });
    children.set(stat.ppid, list);
  }
  const out: ProcessRef[] = [];
  const seen = new Set<number>();
  const work = [...roots];
  while (work.length > 0) {
    const parent = work.pop() as number;
    for (const child of children.get(parent) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      out.push(child);
      work.push(child.pid);
    }
  }
  return out;
}

/** The process is still the one remembered (same start time) and has not exited. */
export function isRunning(ref: ProcessRef): boolean {
  const stat = readStat(ref.pid);
  return stat !== null && stat.start === ref.start && stat.state !== 'Z' && stat.state !== 'X';
}

/** Sends `signal` to the process if it is still the one remembered. */
export function signalProcess(ref: ProcessRef, signal: NodeJS.Signals): void {
  if (!isRunning(ref)) return;
  try {
    process.kill(ref.pid, signal);
  } catch {
    // Gone in between.
  }
}
