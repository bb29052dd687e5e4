// Shared set-up for the poller integration tests: a temp SQLite file per test file, loopback allowed.
import { processSettings } from '@/lib/settings';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore, type Store } from '@/db';
import { storeLocation } from '../../support/store';

export async function tempStore(
  prefix: string,
): Promise<{ store: Store; dir: string; cleanup(): Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `erawatch-${prefix}-`));
  const store = await openStore(await storeLocation(dir, 'erawatch.db'), { settings: processSettings() });
  return {
    store,
    dir,
    async cleanup() {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `check` every 50 ms until it returns a value, failing after `ms`. */
export async function waitFor<T>(
  what: string,
  ms: number,
  check: () => T | null | undefined | false | Promise<T | null | undefined | false>,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
