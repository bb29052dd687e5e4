// SQLite WAL checkpoints on a worker thread. better-sqlite3 is synchronous, so an automatic checkpoint inside a
// commit stalls the event loop (and every probe waiting on it) for the length of a disk flush. The poller
// turns automatic checkpoints off on its connection and lets a second connection on a worker do them.
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Store } from './index';

const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
const timer = setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (err) { parentPort.postMessage(String(err && err.message)); }
}, workerData.everyMs);
parentPort.on('message', () => { clearInterval(timer); db.close(); process.exit(0); });
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

function driverPath(): string | null {
  for (const base of [path.join(process.cwd(), 'package.json'), import.meta.url]) {
    try {
      return createRequire(base).resolve('better-sqlite3');
    } catch {
      // try the next base
    }
  }
  return null;
}

const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;

/** Starts background checkpoints for a file database; returns null (automatic checkpoints stay on) otherwise. */
export function startCheckpointer(
  store: Store,
  everyMs = 1_000,
  log: (line: string) => void = () => {},
): Checkpointer | null {
  // PostgreSQL checkpoints on its own; an in-memory SQLite store has no file to checkpoint.
  if (store.engine !== 'sqlite' || store.location === ':memory:') return null;
  const driver = driverPath();
  if (!driver) return null;
  const sqlite = store.sqlite;
  let worker: Worker;
  try {
    worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { driver, file: store.location, everyMs },
    });
  } catch (err) {
    log(`background checkpoints unavailable: ${err instanceof Error ? err.message : String(err)}`);
    return null;
  }
  worker.unref();
  sqlite.pragma('wal_autocheckpoint = 0');
  const restore = () => {
    if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT_PAGES}`);
  };
  worker.on('message', (m: unknown) => log(`checkpoint: ${String(m)}`));
  worker.on('error', (err) => {
    log(`background checkpoints stopped: ${err.message}`);
    restore();
  });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    async stop() {
      restore();
      worker.postMessage('stop');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise<void>((r) => (timer = setTimeout(r, 2_000)))]);
      clearTimeout(timer);
      await worker.terminate();
    },
  };
}
