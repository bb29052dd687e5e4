// Alert sync: what a sink's stored alerts become when compared with what fires now, and when the sink is
// pushed. The decisions are made here; the store (db/queries/alert-sinks.ts) reads and writes the rows.
import type { Store } from '@/db/index';
import {
  lastPushQueuedAt,
  pushNow,
  queuePush,
  readPendingPush,
  readStoredSinkAlerts,
  sinkHasAlerts,
  writeSinkAlerts,
  type AlertSinkRow,
  type PendingPush,
  type SinkAlertWrites,
  type StoredSinkAlert,
} from '@/db/queries/alert-sinks';
import type { DesiredAlert } from '@/lib/schemas/alert-sink';

/** Resolved alerts are sent with every push for this long (as Prometheus does), then forgotten. */
export const RESOLVED_KEPT_MS = 15 * 60_000;

export interface SinkSync {
  /** An alert started, resolved or came back: the sink is pushed at once rather than at the next resend. */
  changed: boolean;
  firing: number;
  /** Whether a push was queued (or an overdue retry pulled forward). */
  pushQueued: boolean;
}

/**
 * What the sink's alerts become at `now`: an alert it did not know starts, a resolved one that fires again
 * is revived, one whose annotations or link differ is rewritten, a firing one no longer wanted resolves.
 * `changed` when an alert started, resolved or came back.
 */
export function planSinkAlerts(
  known: readonly StoredSinkAlert[],
  desired: readonly DesiredAlert[],
  now: number,
): SinkAlertWrites & { changed: boolean } {
  const byFp = new Map(known.map((k) => [k.fingerprint, k]));
  const wanted = new Set(desired.map((d) => d.fingerprint));
  const started: DesiredAlert[] = [];
  const updated: Array<{ alert: DesiredAlert; revived: boolean }> = [];
  for (const d of desired) {
    const row = byFp.get(d.fingerprint);
    if (!row) {
      started.push(d);
      continue;
    }
    const revived = row.endsAt !== null;
    const same =
      JSON.stringify(row.annotations) === JSON.stringify(d.annotations) &&
      row.generatorUrl === d.generatorUrl;
    if (!same || revived) updated.push({ alert: d, revived });
  }
  const resolved = known
    .filter((k) => k.endsAt === null && !wanted.has(k.fingerprint))
    .map((k) => k.fingerprint);
  const changed = started.length > 0 || resolved.length > 0 || updated.some((u) => u.revived);
  return { started, updated, resolved, forgetResolvedBefore: now - RESOLVED_KEPT_MS, changed };
}

/** A push waiting for its retry sends the current alerts when it goes, so a change only brings it forward. */
export function pullsForward(pending: PendingPush, changed: boolean, now: number): boolean {
  return changed && pending.attempts > 0 && (pending.nextAttemptAt ?? 0) > now;
}

/** Without a change, a sink is pushed again once its resend interval has passed since the last push. */
export function resendDue(lastQueuedAt: number | null, now: number, resendIntervalMs: number): boolean {
  return lastQueuedAt === null || now - lastQueuedAt >= resendIntervalMs;
}

/**
 * Brings one sink's alerts in line with what fires now, and queues a push when something changed or the
 * resend interval has passed. One transaction, so two delivery workers never queue two pushes.
 */
export async function syncSinkAlerts(
  store: Store,
  sink: AlertSinkRow,
  desired: readonly DesiredAlert[],
  now: number,
): Promise<SinkSync> {
  // The common case, nothing firing and nothing known, needs no write lock at all.
  if (desired.length === 0 && !(await sinkHasAlerts(store, sink.id)))
    return { changed: false, firing: 0, pushQueued: false };
  return store.write(async () => {
    const { changed, ...writes } = planSinkAlerts(await readStoredSinkAlerts(store, sink.id), desired, now);
    const remaining = await writeSinkAlerts(store, sink.id, writes, now);
    const pushQueued = remaining > 0 ? await queuePushIfDue(store, sink, now, changed) : false;
    return { changed, firing: desired.length, pushQueued };
  });
}

async function queuePushIfDue(
  store: Store,
  sink: AlertSinkRow,
  now: number,
  changed: boolean,
): Promise<boolean> {
  const pending = await readPendingPush(store, sink.id);
  if (pending) {
    if (!pullsForward(pending, changed, now)) return false;
    await pushNow(store, pending.id, now);
    return true;
  }
  if (!changed && !resendDue(await lastPushQueuedAt(store, sink.id), now, sink.alertmanager.resendIntervalMs))
    return false;
  await queuePush(store, sink.id, now);
  return true;
}
