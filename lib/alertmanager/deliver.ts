// Alertmanager delivery: each pass works out what fires for every sink and queues pushes; a push posts the
// sink's whole alert set to `/api/v2/alerts` of every URL through the egress-guarded sender. The worker calls
// these beside webhook delivery, so retries, the delivery log and disabling work the same for both kinds.
import type { Store } from '@/db/index';
import {
  listEnabledAlertSinkRows,
  readAlertSubjects,
  readSinkAlerts,
  recordPushPayload,
  type AlertSinkRow,
} from '@/db/queries/alert-sinks';
import type { AlertSinkAuthInput } from '@/lib/schemas/alert-sink';
import type { AttemptResult, SendFn } from '@/lib/webhooks/send';
import { alertsFor, postableAlerts, sinkWants } from './alerts';
import { syncSinkAlerts } from './sync';
import { nodeLabels } from '@/lib/schemas/node-label';
import type { Env } from '@/lib/settings';

export function alertsEndpoint(base: string): string {
  return `${base.replace(/\/+$/, '')}/api/v2/alerts`;
}

/** Brings every enabled sink's alerts up to date and queues the pushes that are due; returns pushes queued. */
export async function reconcileAlertSinks(store: Store, now: number, publicUrl: string): Promise<number> {
  const sinks = await listEnabledAlertSinkRows(store);
  if (sinks.length === 0) return 0;
  const firing = (await readAlertSubjects(store)).flatMap(({ nodes, ...s }) =>
    alertsFor({ ...s, nodeLabels: nodeLabels(nodes) }, publicUrl),
  );
  let queued = 0;
  for (const sink of sinks) {
    const wanted = firing.filter((a) => sinkWants(sink, a));
    const sync = await syncSinkAlerts(store, sink, wanted, now);
    if (sync.pushQueued) queued++;
  }
  return queued;
}

type Resolved = { ok: true; header: string | null } | { ok: false; error: string };

function resolveCredential(value: string, env: Env): string | null {
  if (!value.startsWith('env:')) return value;
  const v = env[value.slice(4)];
  return v === undefined || v === '' ? null : v;
}

/** The Authorization header for a sink; an `env:NAME` that is not set is a configuration error, not a send. */
export function authorizationHeader(auth: AlertSinkAuthInput, env: Env): Resolved {
  if (auth.type === 'none') return { ok: true, header: null };
  const raw = auth.type === 'basic' ? auth.password : auth.token;
  const secret = resolveCredential(raw, env);
  if (secret === null) return { ok: false, error: `environment variable ${raw.slice(4)} is not set` };
  return {
    ok: true,
    header:
      auth.type === 'basic'
        ? `Basic ${Buffer.from(`${auth.username}:${secret}`).toString('base64')}`
        : `Bearer ${secret}`,
  };
}

export interface PushDeps {
  send: SendFn;
  timeoutMs: number;
  now: () => number;
  /** Where an `env:NAME` credential is read from. */
  variables: Env;
}

/**
 * One push: the sink's current alerts (never a stale copy, so a retry cannot re-fire a resolved alert) to
 * every URL. It succeeds only when every Alertmanager accepted it; the first failure is the attempt's outcome.
 */
export async function pushSinkAlerts(
  store: Store,
  sink: AlertSinkRow,
  deliveryId: string,
  deps: PushDeps,
): Promise<AttemptResult> {
  const started = deps.now();
  const alerts = await readSinkAlerts(store, sink.id);
  const body = JSON.stringify(postableAlerts(alerts, started, sink.alertmanager.resendIntervalMs));
  await recordPushPayload(store, deliveryId, body);
  const auth = authorizationHeader(sink.alertmanager.auth, deps.variables);
  if (!auth.ok) return { outcome: 'config_error', httpStatus: null, error: auth.error, durationMs: 0 };
  const headers: Record<string, string> = auth.header ? { authorization: auth.header } : {};
  const results = await Promise.all(
    sink.alertmanager.urls.map(async (url) => ({
      url,
      result: await deps.send({ url: alertsEndpoint(url), headers, body, timeoutMs: deps.timeoutMs }),
    })),
  );
  const failed = results.filter((r) => r.result.outcome !== 'ok');
  const durationMs = deps.now() - started;
  const first = failed[0];
  if (!first) {
    return { outcome: 'ok', httpStatus: results[0]?.result.httpStatus ?? null, error: null, durationMs };
  }
  const error = failed.map((f) => `${f.url}: ${f.result.error ?? f.result.outcome}`).join('; ');
  return { outcome: first.result.outcome, httpStatus: first.result.httpStatus, error, durationMs };
}
