// The maintain role: applies the config file at start, then prunes history, events and the delivery log by
// retention. Each run of a job takes a claim in the store for its period, so with several processes running
// the role, each job runs once per period; periods and cut-offs follow the store's clock (PostgreSQL's).
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Store } from '@/db';
import { storeNow } from '@/db/clock';
import { claimPeriodicJob } from '@/db/queries/claims';
import { pruneDashboardSessions, pruneRevokedSessions } from '@/db/queries/sessions';
import { pruneAudit } from '@/db/queries/audit';
import { pruneDeliveries } from '@/db/queries/webhooks';
import { applyConfigAtStartup } from '@/lib/config/startup';
import { pruneOldData } from '@/lib/poller/prune';
import type { Settings } from '@/lib/settings';
import { DEFAULT_DELIVERY_RETENTION_MS } from '@/lib/deliver/deps';
import { errorMessage } from '@/lib/errors';

export interface MaintainOptions {
  store: Store;
  settings: Settings;
  /** This process's clock; on PostgreSQL the database's decides when a run is due and what it prunes. */
  now?: () => number;
  log?: (line: string) => void;
  /** How often retention runs (default one hour). */
  everyMs?: number;
  /** Apply the config file once at start (default true). */
  applyConfig?: boolean;
}

export interface MaintainStatus {
  state: 'running' | 'stopped';
  /** Times this process looked whether a run was due (whichever process then took it). */
  checks: number;
  runs: number;
  lastRunAt: number | null;
  lastError: string | null;
}

export interface MaintainJob {
  stop(): Promise<void>;
  status(): MaintainStatus;
}

export async function startMaintenance(opts: MaintainOptions): Promise<MaintainJob> {
  const { store, settings } = opts;
  const now = opts.now ?? Date.now;
  const log = opts.log ?? ((l: string) => console.error(l));
  const everyMs = opts.everyMs ?? 3_600_000;
  const holder = `maintain:${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const status: MaintainStatus = {
    state: 'running',
    checks: 0,
    runs: 0,
    lastRunAt: null,
    lastError: null,
  };

  if (opts.applyConfig !== false) await applyConfigAtStartup(store, settings, log);

  const run = async () => {
    try {
      const t = await storeNow(store, now());
      // A fresh holder per run: even this process's own claim from the last run blocks until the period ends.
      const claimed = await claimPeriodicJob(store, 'maintain:retention', `${holder}:${t}`, everyMs, t);
      status.checks += 1;
      if (!claimed) return;
      const pruned = await pruneOldData(store, t - settings.retentionMs);
      const deliveries = await pruneDeliveries(store, t - DEFAULT_DELIVERY_RETENTION_MS);
      // A logout is kept only until the cookie it ended would have expired anyway; so is each session issued.
      const sessions = await pruneRevokedSessions(store, t);
      const issued = await pruneDashboardSessions(store, t);
      const audit = await pruneAudit(store, t - settings.auditRetentionMs);
      const total = pruned.rollups + pruned.history + pruned.events + deliveries + sessions + issued + audit;
      if (total > 0) {
        log(
          `[maintain] pruned ${pruned.rollups} rollups, ${pruned.history} history rows, ${pruned.events} events, ${deliveries} deliveries, ${sessions} ended sessions, ${issued} expired sessions, ${audit} audit entries`,
        );
      }
      status.runs += 1;
      status.lastRunAt = t;
    } catch (err) {
      status.lastError = errorMessage(err);
      log(`[maintain] retention failed: ${status.lastError}`);
    }
  };
  void run();
  const timer = setInterval(() => void run(), Math.min(everyMs, 60_000));
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      status.state = 'stopped';
    },
    status: () => ({ ...status }),
  };
}
