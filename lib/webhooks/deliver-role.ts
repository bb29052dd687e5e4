// The outbox worker: settles held alerts, claims due deliveries, sends each once, and records the outcome with
// the retry schedule. Each endpoint is its own lane: one that hangs holds only its own deliveries, never
// another endpoint's. Time, randomness and HTTP are parameters, so tests run a day of retries in a moment.
import type { Store } from '@/db/index';
import { storeNow } from '@/db/clock';
import {
  claimDueDeliveries,
  recordAttempt,
  type AttemptDecision,
  type ClaimedDelivery,
} from '@/db/queries/webhooks';
import { pushSinkAlerts, reconcileAlertSinks } from '@/lib/alertmanager/deliver';
import type { Env, Settings } from '@/lib/settings';
import { recordWebhookAttempt } from '@/lib/metrics/stored';
import { createEgressAgent } from '@/lib/net/egress';
import { ATTEMPT_TIMEOUT_MS, retryDelayMs } from './schedule';
import { createSender, type AttemptResult, type SendFn } from './send';
import { webhookEgressPolicy } from './egress';
import { settleHeldDeliveries } from './held';
import { signedHeaders, signingSecrets } from './signing';
import { errorMessage } from '@/lib/errors';

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
  /** Attempts in flight at once to one endpoint. */
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

/** What happens after one attempt: pure, so the schedule and the disabling rules are unit-testable. */
export function decideAfterAttempt(
  claimed: ClaimedDelivery,
  result: AttemptResult,
  at: number,
  deps: Pick<DeliveryDeps, 'random' | 'disableAfterMs'>,
): AttemptDecision {
  if (result.outcome === 'ok') {
    return { status: 'succeeded', nextAttemptAt: null, disableReason: null, failingSince: null };
  }
  const failingSince = claimed.endpoint.failingSince ?? at;
  if (result.outcome === 'gone') {
    return {
      status: 'failed',
      nextAttemptAt: null,
      disableReason: 'the receiver answered 410 Gone',
      failingSince,
    };
  }
  const delay = retryDelayMs(claimed.delivery.attempts + 1, deps.random());
  const failingFor = at - failingSince;
  const disableReason =
    failingFor >= deps.disableAfterMs
      ? `every attempt failed since ${new Date(failingSince).toISOString()} (last: ${result.error ?? result.outcome})`
      : null;
  return {
    status: delay === null ? 'failed' : 'pending',
    nextAttemptAt: delay === null ? null : at + delay,
    disableReason,
    failingSince,
  };
}

/** Sends one claimed delivery to its endpoint; one function per endpoint kind, all sharing the outbox. */
export type DeliverFn = (
  store: Store,
  claimed: ClaimedDelivery,
  at: number,
  deps: DeliveryDeps,
) => Promise<AttemptResult>;

const deliverWebhook: DeliverFn = (_store, claimed, at, deps) =>
  deps.send({
    url: claimed.endpoint.url,
    headers: signedHeaders(
      signingSecrets(claimed.endpoint, at),
      claimed.delivery.id,
      Math.floor(at / 1000),
      claimed.delivery.payload,
    ),
    body: claimed.delivery.payload,
    timeoutMs: deps.timeoutMs,
  });

const deliverToAlertmanager: DeliverFn = async (store, claimed, _at, deps) => {
  const { endpoint } = claimed;
  if (!endpoint.alertmanager) {
    return { outcome: 'config_error', httpStatus: null, error: 'alert sink has no settings', durationMs: 0 };
  }
  return pushSinkAlerts(
    store,
    { ...endpoint, alertmanager: endpoint.alertmanager },
    claimed.delivery.id,
    deps,
  );
};

const DELIVERERS: Record<ClaimedDelivery['endpoint']['kind'], DeliverFn> = {
  webhook: deliverWebhook,
  alertmanager: deliverToAlertmanager,
};

async function attemptOne(
  store: Store,
  claimed: ClaimedDelivery,
  deps: DeliveryDeps,
): Promise<AttemptResult> {
  const at = await deliveryTime(store, deps);
  const result = await DELIVERERS[claimed.endpoint.kind](store, claimed, at, deps);
  const decision = decideAfterAttempt(claimed, result, at, deps);
  await recordAttempt(
    store,
    claimed.delivery.id,
    claimed.endpoint.id,
    {
      at,
      httpStatus: result.httpStatus,
      outcome: result.outcome,
      error: result.error,
      durationMs: result.durationMs,
    },
    decision,
  );
  recordWebhookAttempt(result.outcome, result.durationMs);
  return result;
}

export interface PassSummary {
  attempted: number;
  succeeded: number;
  released: number;
  suppressed: number;
}

/** One bounded pass over what is due now, waiting for every attempt it started (tests and one-shot use). */
export async function runDeliveryPass(store: Store, deps: DeliveryDeps): Promise<PassSummary> {
  const now = await deliveryTime(store, deps);
  await reconcileAlertSinks(store, now, deps.publicUrl);
  const { released, suppressed } = await settleHeldDeliveries(store, now);
  const claimed = await claimDueDeliveries(store, now, {
    limit: deps.batchSize,
    leaseMs: attemptLeaseMs(deps),
  });
  let succeeded = 0;
  let next = 0;
  const lanes = Array.from({ length: Math.min(deps.concurrency, claimed.length) }, async () => {
    for (;;) {
      const item = claimed[next++];
      if (!item) return;
      const result = await attemptOne(store, item, deps);
      if (result.outcome === 'ok') succeeded++;
    }
  });
  await Promise.all(lanes);
  return { attempted: claimed.length, succeeded, released, suppressed };
}

/** Sends one delivery right away (test-send), outside the schedule; returns the attempt. */
export async function attemptNow(
  store: Store,
  claimed: ClaimedDelivery,
  deps: DeliveryDeps,
): Promise<AttemptResult> {
  return attemptOne(store, claimed, deps);
}

export interface DeliveryWorkerStatus {
  state: 'running' | 'stopping' | 'stopped';
  /** Endpoints with attempts in flight now. */
  endpointsInFlight: number;
  /** Claim passes run so far, and attempts they started. */
  passes: number;
  attempted: number;
  lastError: string | null;
}

export interface DeliveryWorker {
  /** Runs a pass now (e.g. right after this process wrote to the outbox) instead of at the next poll. */
  wake(): void;
  stop(): Promise<void>;
  status(): DeliveryWorkerStatus;
}

/** A database error without its query's parameters (a webhook's secret is one of them). */
function describe(err: unknown): string {
  return errorMessage(err);
}

/**
 * Claims and starts due deliveries every `pollMs` (and at once when a lane frees up) until stopped. A pass
 * never waits for the attempts it starts: each endpoint's attempts run in that endpoint's own lane, and an
 * endpoint with a lane in flight is not claimed again until the lane is done. stop() waits up to
 * `stopGraceMs` for open attempts.
 */
export function startDeliveryWorker(
  store: Store,
  deps: DeliveryDeps,
  pollMs = 1_000,
  log: (line: string) => void = (l) => console.error(l),
  stopGraceMs = 5_000,
): DeliveryWorker {
  let state: DeliveryWorkerStatus['state'] = 'running';
  let timer: NodeJS.Timeout | null = null;
  let attempted = 0;
  let passes = 0;
  let lastError: string | null = null;
  const lanes = new Map<string, Promise<void>>();

  const schedule = (delayMs: number) => {
    if (state !== 'running') return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void tick(), delayMs);
    timer.unref();
  };

  const startLane = (endpointId: string, items: ClaimedDelivery[]) => {
    const lane = Promise.all(
      items.map((item) =>
        attemptOne(store, item, deps).then(
          () => undefined,
          (err: unknown) => {
            lastError = describe(err);
            log(`erawatch webhooks: recording an attempt failed: ${lastError}`);
          },
        ),
      ),
    ).then(() => {
      lanes.delete(endpointId);
      // The endpoint may have more due: look again now rather than at the next poll.
      schedule(0);
    });
    lanes.set(endpointId, lane);
  };

  // One pass at a time: a wake during a pass runs another pass right after it, not beside it.
  let passing = false;
  let again = false;
  async function tick(): Promise<void> {
    timer = null;
    if (state !== 'running') return;
    if (passing) {
      again = true;
      return;
    }
    passing = true;
    try {
      await pass();
    } finally {
      passing = false;
    }
    if (again) {
      again = false;
      schedule(0);
    }
  }

  async function pass(): Promise<void> {
    let claimed: ClaimedDelivery[] = [];
    try {
      const now = await deliveryTime(store, deps);
      await reconcileAlertSinks(store, now, deps.publicUrl);
      await settleHeldDeliveries(store, now);
      claimed = await claimDueDeliveries(store, now, {
        limit: deps.batchSize,
        leaseMs: attemptLeaseMs(deps),
        perEndpoint: deps.concurrency,
        excludeEndpointIds: [...lanes.keys()],
      });
    } catch (err) {
      lastError = describe(err);
      log(`erawatch webhooks: delivery pass failed: ${lastError}`);
    }
    // Stopped during the pass: what was claimed is retried after its attempt lease.
    if (state !== 'running') return;
    passes += 1;
    attempted += claimed.length;
    const byEndpoint = new Map<string, ClaimedDelivery[]>();
    for (const c of claimed) {
      const list = byEndpoint.get(c.endpoint.id) ?? [];
      list.push(c);
      byEndpoint.set(c.endpoint.id, list);
    }
    for (const [endpointId, items] of byEndpoint) startLane(endpointId, items);
    // A full batch means more is due: go again at once.
    schedule(claimed.length >= deps.batchSize ? 0 : pollMs);
  }

  schedule(0);
  let stopping: Promise<void> | null = null;
  return {
    wake: () => schedule(0),
    stop() {
      stopping ??= (async () => {
        state = 'stopping';
        if (timer) clearTimeout(timer);
        timer = null;
        // Attempts still open after the grace are left to their claim's lease: another worker retries them.
        let grace: NodeJS.Timeout | undefined;
        await Promise.race([
          Promise.allSettled([...lanes.values()]),
          new Promise<void>((r) => {
            grace = setTimeout(r, stopGraceMs);
            grace.unref();
          }),
        ]);
        clearTimeout(grace);
        state = 'stopped';
      })();
      return stopping;
    },
    status() {
      return { state, endpointsInFlight: lanes.size, passes, attempted, lastError };
    },
  };
}
