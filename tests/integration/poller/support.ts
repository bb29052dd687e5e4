// Shared set-up for the poller integration tests: a temp SQLite file per test file, loopback allowed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDb, type Store } from '@/db';

export function tempStore(prefix: string): { store: Store; dir: string; cleanup(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `erawatch-${prefix}-`));
  const store = openDb(path.join(dir, 'erawatch.db'));
  return {
    store,
    dir,
    cleanup() {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `check` every 50 ms until it returns a value, failing after `ms`. */
export async function waitFor<T>(
  what: string,
  ms: number,
  check: () => T | null | undefined | false,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
