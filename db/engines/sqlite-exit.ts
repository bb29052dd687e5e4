// What must happen synchronously at process exit (no event loop left to await on).
import type Database from 'better-sqlite3';

/** Deletes the lease row if it is still ours, synchronously; false when the handle is gone. */
export function sqliteReleaseLeaseNow(sqlite: Database.Database, name: string, holder: string): boolean {
  if (!sqlite.open) return false;
  sqlite.prepare('DELETE FROM poller_lease WHERE name = ? AND holder = ?').run(name, holder);
  return true;
}
