// One worker with roles: poll (unit claims, cycles, probe series), deliver (webhook and alert-sink outbox) and
// maintain (config apply, retention). The web server runs every role by default; `erawatch worker --roles`
// runs any of them alone. Each role is a job with start, stop and status, safe to run in many processes.
import type { Store } from '@/db';
import {
  startPollerWith,
  type PollerHandle,
  type PollerOptions,
  type PollerStatus,
} from '@/lib/poller/runner';
import {
  startDeliveryWorker,
  defaultDeliveryDeps,
  type DeliveryDeps,
  type DeliveryWorkerStatus,
} from '@/lib/webhooks/worker';
import { startMetricFlusher } from '@/lib/metrics/stored';
import { startMaintenance, type MaintainStatus } from './maintain';

export const ROLES = ['poll', 'deliver', 'maintain'] as const;
export type Role = (typeof ROLES)[number];

export function parseRoles(raw: string): Role[] {
  const names = raw
    .split(',')
    .map((r) => r.trim())
    .filter((r) => r !== '');
  if (names.length === 0) throw new RangeError('--roles needs at least one of poll, deliver, maintain');
  const roles: Role[] = [];
  for (const name of names) {
    if (!(ROLES as readonly string[]).includes(name)) {
      throw new RangeError(`unknown role '${name}' (roles: ${ROLES.join(', ')})`);
    }
    if (!roles.includes(name as Role)) roles.push(name as Role);
  }
  return roles;
}

/** The roles the web server runs: all, minus those switched off (ERAWATCH_POLLER=off, ERAWATCH_WEBHOOKS=off). */
export function webRolesFromEnv(env: Record<string, string | undefined>): Role[] {
  if (env.ERAWATCH_ROLES !== undefined && env.ERAWATCH_ROLES.trim() !== '') {
    return env.ERAWATCH_ROLES.trim() === 'none' ? [] : parseRoles(env.ERAWATCH_ROLES);
  }
  return ROLES.filter(
    (r) =>
      !(r === 'poll' && env.ERAWATCH_POLLER === 'off') &&
      !(r === 'deliver' && env.ERAWATCH_WEBHOOKS === 'off'),
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
  env?: Record<string, string | undefined>;
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
  const env = opts.env ?? process.env;
  const log = opts.log ?? ((l: string) => process.stdout.write(`${l}\n`));
  const jobs: Job[] = [];
  let poller: PollerHandle | null = null;
  for (const role of opts.roles) {
    if (role === 'maintain') {
      const job = await startMaintenance({
        store: opts.store,
        env,
        log,
        ...(opts.maintainEveryMs ? { everyMs: opts.maintainEveryMs } : {}),
      });
      jobs.push({ stop: () => job.stop(), status: () => ({ role, status: job.status() }) });
    } else if (role === 'deliver') {
      const job = startDeliveryWorker(
        opts.store,
        opts.deliver ?? defaultDeliveryDeps(env),
        opts.deliverPollMs,
        log,
      );
      jobs.push({ stop: () => job.stop(), status: () => ({ role, status: job.status() }) });
    } else {
      const job = (poller = startPollerWith({
        env,
        log: (l) => log(`[poller] ${l}`),
        ...opts.poll,
        store: opts.store,
      }));
      jobs.push({ stop: () => job.stop(), status: () => ({ role, status: job.status() }) });
    }
  }
  // Delivery attempts and probe-now results of this process reach the stored series too.
  const flusher = startMetricFlusher(opts.store, 1_000, log);
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
