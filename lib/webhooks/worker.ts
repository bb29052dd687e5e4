// The outbox worker: settles held alerts, claims due deliveries, sends each once, and records the outcome with
// the retry schedule. Time, randomness and HTTP are parameters, so tests run a day of retries in a moment.
import type { Store } from '@/db/index';
import {
  claimDueDeliveries,
  pruneDeliveries,
  recordAttempt,
  settleHeldDeliveries,
  signingSecrets,
  type AttemptDecision,
  type ClaimedDelivery,
} from '@/db/queries/webhooks';
import { publicUrlFromEnv, pushSinkAlerts, reconcileAlertSinks } from '@/lib/alertmanager/deliver';
import { recordWebhookAttempt } from '@/lib/metrics/registry';
import { createEgressAgent } from '@/lib/net/egress';
import { ATTEMPT_TIMEOUT_MS, DEFAULT_DISABLE_AFTER_MS, retryDelayMs } from './schedule';

export const DEFAULT_DELIVERY_RETENTION_MS = 30 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;
import { createSender, type AttemptResult, type SendFn } from './send';
import { webhookEgressPolicy } from './egress';
import { signedHeaders } from './signing';

export interface DeliveryDeps {
  now: () => number;
  random: () => number;
  send: SendFn;
  timeoutMs: number;
  disableAfterMs: number;
  /** Deliveries claimed per pass, and how many are in flight at once. */
  batchSize: number;
  concurrency: number;
  /** Finished deliveries older than this are deleted, so the log stays bounded. */
  retentionMs: number;
  /** The dashboard's address, linked from Alertmanager alerts (`ERAWATCH_PUBLIC_URL`). */
  publicUrl?: string;
}

export function defaultDeliveryDeps(env: Record<string, string | undefined> = process.env): DeliveryDeps {
  const days = Number(env.ERAWATCH_WEBHOOK_DISABLE_AFTER_DAYS);
  return {
    now: Date.now,
    random: Math.random,
    send: createSender(createEgressAgent(webhookEgressPolicy(env), { connectTimeoutMs: ATTEMPT_TIMEOUT_MS })),
    timeoutMs: ATTEMPT_TIMEOUT_MS,
    disableAfterMs: Number.isFinite(days) && days > 0 ? days * 86_400_000 : DEFAULT_DISABLE_AFTER_MS,
    batchSize: 50,
    concurrency: 8,
    retentionMs: DEFAULT_DELIVERY_RETENTION_MS,
    publicUrl: publicUrlFromEnv(env),
  };
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

async function attemptOne(
  store: Store,
  claimed: ClaimedDelivery,
  deps: DeliveryDeps,
): Promise<AttemptResult> {
  const at = deps.now();
  const { delivery, endpoint } = claimed;
  const result = endpoint.alertmanager
    ? await pushSinkAlerts(store, { ...endpoint, alertmanager: endpoint.alertmanager }, delivery.id, deps)
    : await deps.send({
        url: endpoint.url,
        headers: signedHeaders(
          signingSecrets(endpoint, at),
          delivery.id,
          Math.floor(at / 1000),
          delivery.payload,
        ),
        body: delivery.payload,
        timeoutMs: deps.timeoutMs,
      });
  const decision = decideAfterAttempt(claimed, result, at, deps);
  recordAttempt(
    store,
    delivery.id,
    endpoint.id,
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

/** One bounded pass over what is due now. */
export async function runDeliveryPass(store: Store, deps: DeliveryDeps): Promise<PassSummary> {
  const now = deps.now();
  reconcileAlertSinks(store, now, deps.publicUrl ?? publicUrlFromEnv());
  const { released, suppressed } = settleHeldDeliveries(store, now);
  const claimed = claimDueDeliveries(store, now, deps.batchSize, deps.timeoutMs + 15_000);
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

export interface DeliveryWorker {
  stop(): Promise<void>;
}

/** Runs passes every `pollMs` until stopped. A pass that throws is logged and the loop goes on. */
export function startDeliveryWorker(
  store: Store,
  deps: DeliveryDeps = defaultDeliveryDeps(),
  pollMs = 1_000,
): DeliveryWorker {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> = Promise.resolve();
  let prunedAt = 0;
  const tick = () => {
    if (stopped) return;
    const now = deps.now();
    if (now - prunedAt >= PRUNE_EVERY_MS) {
      prunedAt = now;
      try {
        pruneDeliveries(store, now - deps.retentionMs);
      } catch (err) {
        console.error(
          'erawatch webhooks: pruning the delivery log failed:',
          err instanceof Error ? err.message : err,
        );
      }
    }
    running = runDeliveryPass(store, deps)
      .catch((err: unknown) =>
        console.error('erawatch webhooks: delivery pass failed:', err instanceof Error ? err.message : err),
      )
      .then((summary) => {
        if (stopped) return;
        // A full batch means more is due: go again at once.
        const more = summary && summary.attempted >= deps.batchSize;
        timer = setTimeout(tick, more ? 0 : pollMs);
        timer.unref();
      });
  };
  timer = setTimeout(tick, 0);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
