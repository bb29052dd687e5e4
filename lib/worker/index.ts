// One worker with roles: poll (unit claims, cycles, probe series), deliver (webhook and alert-sink outbox) and
// maintain (config apply, retention). The web server runs every role by default; `erawatch worker --roles`
// runs any of them alone. Each role is a job with start, stop and status, safe to run in many processes.
import type { Store } from '@/db';
import {
  startPollerWith,
  type PollerHandle,
  type PollerOptions,
  type PollerStatus,
} from '@/lib/poller/poll-role';
import { defaultDeliveryDeps, type DeliveryDeps } from '@/lib/deliver/deps';
import { startDeliveryWorker, type DeliveryWorkerStatus } from '@/lib/deliver/loop';
import { observePoller } from '@/lib/metrics/poller-observer';
import { startMetricFlusher } from '@/lib/metrics/stored';
import { parseRoles as parseRoleList, ROLES, type Role, type Settings } from '@/lib/settings';
import { startMaintenance, type MaintainStatus } from './maintain';

/** How often a worker adds what it counted to the stored metric series. */
export const METRIC_FLUSH_MS = 5_000;

export { ROLES, type Role };

/** The `--roles` flag's list; throws RangeError saying what is wrong. */
export function parseRoles(raw: string): Role[] {
  const parsed = parseRoleList(raw);
  if (!parsed.ok) throw new RangeError(`--roles ${parsed.why}`);
  return parsed.value;
}

/** The roles the web server runs: all, minus those switched off (ERAWATCH_POLLER=off, ERAWATCH_WEBHOOKS=off). */
export function webRoles(settings: Pick<Settings, 'webRoles' | 'pollInWeb' | 'deliverInWeb'>): Role[] {
  if (settings.webRoles !== null) return [...settings.webRoles];
  return ROLES.filter(
    (r) => !(r === 'poll' && !settings.pollInWeb) && !(r === 'deliver' && !settings.deliverInWeb),
  );
}

export type RoleStatus =
  | { role: 'poll'; status: PollerStatus }
  | { role: 'deliver'; status: DeliveryWorkerStatus }
  | { role: 'maintain'; status: MaintainStatus };

interface Job {
  stop(): Promise<void>;
  status(): RoleStatus;
}

export interface WorkerOptions {
  store: Store;
  roles: readonly Role[];
  settings: Settings;
  log?: (line: string) => void;
  poll?: Partial<Omit<PollerOptions, 'store'>>;
  deliver?: DeliveryDeps;
  deliverPollMs?: number;
  maintainEveryMs?: number;
}

export interface WorkerHandle {
  roles: readonly Role[];
  /** The poll role's poller, when this worker runs it. */
  poller: PollerHandle | null;
  status(): RoleStatus[];
  /** Stops every role (the poller finishes or abandons its cycles and hands back its units). */
  stop(): Promise<void>;
}

export async function startWorker(opts: WorkerOptions): Promise<WorkerHandle> {
  const { settings } = opts;
  const log = opts.log ?? ((l: string) => process.stdout.write(`${l}\n`));
  const jobs: Job[] = [];
  let poller: PollerHandle | null = null;
  for (const role of opts.roles) {
    if (role === 'maintain') {
      const job = await startMaintenance({
        store: opts.store,
        settings,
        log,
        ...(opts.maintainEveryMs ? { everyMs: opts.maintainEveryMs } : {}),
      });
      jobs.push({ stop: () => job.stop(), status: () => ({ role, status: job.status() }) });
    } else if (role === 'deliver') {
      const job = startDeliveryWorker(
        opts.store,
        opts.deliver ?? defaultDeliveryDeps(settings),
        opts.deliverPollMs,
        log,
      );
      jobs.push({ stop: () => job.stop(), status: () => ({ role, status: job.status() }) });
    } else {
      const job = (poller = startPollerWith({
        settings,
        log: (l) => log(`[poller] ${l}`),
        ...opts.poll,
        store: opts.store,
      }));
      // Every probe and failed or fenced cycle lands in the stored series, whichever process polls.
      observePoller(job.events);
      jobs.push({ stop: () => job.stop(), status: () => ({ role, status: job.status() }) });
    }
  }
  // The roles' counts (probes, cycles, delivery attempts) reach the stored series /metrics renders, every
  // few seconds: well inside any scrape interval, and one row version per series, not one per cycle.
  const flusher = startMetricFlusher(opts.store, METRIC_FLUSH_MS, log);
  let stopping: Promise<void> | null = null;
  return {
    roles: [...opts.roles],
    poller,
    status: () => jobs.map((j) => j.status()),
    stop() {
      stopping ??= (async () => {
        await Promise.allSettled(jobs.map((j) => j.stop()));
        await flusher.stop();
      })();
      return stopping;
    },
  };
}
