// Who holds poll units, and when a holder is gone without waiting for its claims to expire (it ran on this
// host and its pid no longer exists). The rows themselves live in db/queries/units.
import fs from 'node:fs';
import os from 'node:os';

/**
 * The holder ran on this host and its process is gone: no such pid (ESRCH), or only its zombie is left (killed,
 * and not yet reaped by a parent that may never reap it, such as an init-less container's first process).
 * EPERM means it exists under another user.
 */
export function holderGoneOnThisHost(
  current: { hostname: string; pid: number },
  hostname: string = os.hostname(),
): boolean {
  if (current.hostname !== hostname || current.pid === process.pid) return false;
  try {
    process.kill(current.pid, 0);
  } catch (err) {
    return (err as { code?: string }).code === 'ESRCH';
  }
  return isZombie(current.pid);
}

/** Linux: the process state in /proc/PID/stat is Z (zombie) or X (dead). Elsewhere, false. */
function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return false;
  }
  // `pid (comm) state ...`: comm may hold spaces and parentheses, so the state follows the last ')'.
  const state = stat.charAt(stat.lastIndexOf(')') + 2);
  return state === 'Z' || state === 'X';
}
