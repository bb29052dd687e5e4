// What delivery runs with: time, randomness and HTTP are parameters, so tests run a day of retries in a
// moment; production takes them from the settings.
import type { Store } from '@/db/index';
import { storeNow } from '@/db/clock';
import { createEgressAgent } from '@/lib/net/egress';
import type { Env, Settings } from '@/lib/settings';
import { webhookEgressPolicy } from './egress';
import { createSender, type SendFn } from './http';
import { ATTEMPT_TIMEOUT_MS } from './schedule';

export const DEFAULT_DELIVERY_RETENTION_MS = 30 * 86_400_000;

export interface DeliveryDeps {
  /** This process's clock: times each attempt, and decides what is due unless `storeClock` is set. */
  now: () => number;
  /** Due times, claims and attempt times follow the store's clock (the database's on PostgreSQL), so workers
   *  on hosts with skewed clocks neither send early nor starve. Off, `now` alone rules (a simulated clock). */
  storeClock?: boolean;
  random: () => number;
  send: SendFn;
  timeoutMs: number;
  disableAfterMs: number;
  /** Deliveries claimed per pass. */
  batchSize: number;
  /** Attempts in flight at once to one endpoint (deliveries claimed per endpoint in one pass). */
  concurrency: number;
  /** Finished deliveries older than this are deleted (by the maintain role), so the log stays bounded. */
  retentionMs: number;
  /** The dashboard's address, linked from Alertmanager alerts (`ERAWATCH_PUBLIC_URL`). */
  publicUrl: string;
  /** Where a sink's `env:NAME` credential is read from. */
  variables: Env;
}

export function defaultDeliveryDeps(settings: Settings): DeliveryDeps {
  return {
    now: Date.now,
    storeClock: true,
    random: Math.random,
    send: createSender(
      createEgressAgent(webhookEgressPolicy(settings), { connectTimeoutMs: ATTEMPT_TIMEOUT_MS }),
    ),
    timeoutMs: ATTEMPT_TIMEOUT_MS,
    disableAfterMs: settings.webhookDisableAfterMs,
    batchSize: 50,
    concurrency: 8,
    retentionMs: DEFAULT_DELIVERY_RETENTION_MS,
    publicUrl: settings.publicUrl,
    variables: settings.environment,
  };
}

/** The time deliveries are judged and recorded by: the store's (database time on PostgreSQL), or `deps.now`. */
export function deliveryTime(store: Store, deps: Pick<DeliveryDeps, 'now' | 'storeClock'>): Promise<number> {
  return deps.storeClock ? storeNow(store, deps.now()) : Promise.resolve(deps.now());
}

/** The claim on a delivery outlives one attempt's deadline, so only a crashed worker's claim lapses. */
export function attemptLeaseMs(deps: Pick<DeliveryDeps, 'timeoutMs'>): number {
  return deps.timeoutMs + 15_000;
}
