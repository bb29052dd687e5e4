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
  return () => stopRunCluster(dir);
}
