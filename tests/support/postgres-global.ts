// Vitest global setup: publishes a run directory where the first test file that needs PostgreSQL starts the
// run's one cluster (see postgres.ts), and stops that cluster by its PID when the run ends, failed or not.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { stopRunCluster } from './postgres';

export default function setup(project: TestProject): () => Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-pgrun-'));
  project.provide('pgRunDir', dir);
  // An interrupted run (Ctrl-C) exits without the teardown: ask the postmaster to shut down on the way out.
  const onExit = () => {
    try {
      const { pid } = JSON.parse(fs.readFileSync(path.join(dir, 'cluster.json'), 'utf8')) as { pid: number };
      process.kill(pid, 'SIGINT');
    } catch {
      // no cluster was started, or it is gone already
    }
  };
  process.once('exit', onExit);
  return async () => {
    process.off('exit', onExit);
    await stopRunCluster(dir);
  };
}
