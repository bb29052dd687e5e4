// The outbox worker: one pass lets each sender do its pre-claim work, settles held alerts, claims due
// deliveries and starts one lane per endpoint; an endpoint that hangs holds only its own lane, never another
// endpoint's. The worker runs that pass on a timer; tests run the same pass and wait for its lanes.
import type { Store } from '@/db/index';
import {
  claimDueDeliveries,
  recordAttempt,
  type AttemptDecision,
  type ClaimedDelivery,
} from '@/db/queries/webhooks';
import { recordWebhookAttempt } from '@/lib/metrics/stored';
import { errorMessage } from '@/lib/errors';
import { attemptLeaseMs, deliveryTime, type DeliveryDeps } from './deps';
import { settleHeldDeliveries } from './held';
import type { AttemptResult } from './http';
import { retryDelayMs } from './schedule';
import { SENDERS } from './senders';

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

/** One attempt of a claimed delivery by its kind's sender, recorded with what comes next (a test send too). */
export async function attemptDelivery(
  store: Store,
  claimed: ClaimedDelivery,
  deps: DeliveryDeps,
): Promise<AttemptResult> {
  const at = await deliveryTime(store, deps);
  const result = await SENDERS[claimed.endpoint.kind].send(store, claimed, at, deps);
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

/** One endpoint's attempts of a pass, each settled (an attempt that could not be recorded is rejected). */
export type Lane = Promise<Array<PromiseSettledResult<AttemptResult>>>;

export interface Pass {
  /** Deliveries claimed. */
  claimed: number;
  /** Held alerts released for delivery, and dropped, by this pass. */
  released: number;
  suppressed: number;
  /** The lanes started, by endpoint id; the pass does not wait for them. */
  lanes: Map<string, Lane>;
}

export interface PassOptions {
  /** Endpoints with a lane still in flight: not claimed again until it is done. */
  busy?: Iterable<string>;
  /** Asked after the claim: false leaves what was claimed to its attempt lease (a stopping worker). */
  proceed?: () => boolean;
}

/**
 * One pass over what is due now: each sender's pre-claim work, settle held alerts, claim up to `batchSize`
 * deliveries (at most `concurrency` per endpoint, none of a busy endpoint), and start one lane per endpoint
 * whose attempts run side by side.
 */
export async function deliveryPass(store: Store, deps: DeliveryDeps, opts: PassOptions = {}): Promise<Pass> {
  const now = await deliveryTime(store, deps);
  for (const sender of Object.values(SENDERS)) await sender.beforeClaim?.(store, now, deps);
  const { released, suppressed } = await settleHeldDeliveries(store, now);
  const claimed = await claimDueDeliveries(store, now, {
    limit: deps.batchSize,
    leaseMs: attemptLeaseMs(deps),
    perEndpoint: deps.concurrency,
    excludeEndpointIds: [...(opts.busy ?? [])],
  });
  const lanes = new Map<string, Lane>();
  if (opts.proceed && !opts.proceed()) return { claimed: 0, released, suppressed, lanes };
  const byEndpoint = new Map<string, ClaimedDelivery[]>();
  for (const c of claimed) {
    const list = byEndpoint.get(c.endpoint.id) ?? [];
    list.push(c);
    byEndpoint.set(c.endpoint.id, list);
  }
  for (const [endpointId, items] of byEndpoint) {
    lanes.set(endpointId, Promise.allSettled(items.map((item) => attemptDelivery(store, item, deps))));
  }
  return { claimed: claimed.length, released, suppressed, lanes };
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

/**
 * Logs every attempt of a lane whose outcome could not be recorded; returns the last such error, if any. The
 * message is a database error without its query's parameters (a webhook's secret is one of them).
 */
function recordFailures(results: Awaited<Lane>, log: (line: string) => void): string | undefined {
  let last: string | undefined;
  for (const r of results) {
    if (r.status !== 'rejected') continue;
    last = errorMessage(r.reason);
    log(`erawatch webhooks: recording an attempt failed: ${last}`);
  }
  return last;
}

/**
 * Waits for the open lanes, at most `graceMs`. Attempts still open after the grace are left to their claim's
 * lease: another worker retries them.
 */
async function settleWithin(lanes: Promise<void>[], graceMs: number): Promise<void> {
  let grace: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled(lanes),
    new Promise<void>((r) => {
      grace = setTimeout(r, graceMs);
      grace.unref();
    }),
  ]);
  clearTimeout(grace);
}

/**
 * Runs `deliveryPass` every `pollMs` (and at once when a lane frees up or a batch was full) until stopped. A
 * pass never waits for the lanes it starts, and an endpoint with a lane in flight is not claimed again until
 * the lane is done. stop() waits up to `stopGraceMs` for open attempts.
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

  const follow = (endpointId: string, lane: Lane) => {
    const done = lane.then((results) => {
      lastError = recordFailures(results, log) ?? lastError;
      lanes.delete(endpointId);
      // The endpoint may have more due: look again now rather than at the next poll.
      schedule(0);
    });
    lanes.set(endpointId, done);
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
    let claimed = 0;
    try {
      const started = await deliveryPass(store, deps, {
        busy: lanes.keys(),
        proceed: () => state === 'running',
      });
      claimed = started.claimed;
      for (const [endpointId, lane] of started.lanes) follow(endpointId, lane);
    } catch (err) {
      lastError = errorMessage(err);
      log(`erawatch webhooks: delivery pass failed: ${lastError}`);
    }
    if (state !== 'running') return;
    passes += 1;
    attempted += claimed;
    // A full batch means more is due: go again at once.
    schedule(claimed >= deps.batchSize ? 0 : pollMs);
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
        await settleWithin([...lanes.values()], stopGraceMs);
        state = 'stopped';
      })();
      return stopping;
    },
    status() {
      return { state, endpointsInFlight: lanes.size, passes, attempted, lastError };
    },
  };
}
