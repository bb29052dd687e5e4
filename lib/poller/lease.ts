// Who holds poll units, and when a holder is gone without waiting for its claims to expire (it ran on this
// host and its pid no longer exists). The rows themselves live in db/queries/units.
import os from 'node:os';

/** The holder ran on this host and its process is gone (ESRCH); EPERM means it exists under another user. */
export function holderGoneOnThisHost(
  current: { hostname: string; pid: number },
  hostname: string = os.hostname(),
): boolean {
  if (current.hostname !== hostname || current.pid === process.pid) return false;
  try {
    process.kill(current.pid, 0);
    return false;
  } catch (err) {
    return (err as { code?: string }).code === 'ESRCH';
  }
}
