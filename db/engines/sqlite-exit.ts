// What must happen synchronously at process exit (no event loop left to await on).
import type Database from 'better-sqlite3';

/** Hands back a poll holder's units and drops its presence row, synchronously; false when the handle is gone. */
export function sqliteReleaseUnitsNow(sqlite: Database.Database, holder: string): boolean {
  if (!sqlite.open) return false;
  sqlite.prepare('UPDATE poll_units SET expires_at = 0 WHERE holder = ?').run(holder);
  sqlite.prepare('DELETE FROM poll_workers WHERE holder = ?').run(holder);
  return true;
}
