// Prometheus metrics, one registry per process. Labels are bounded enumerations (era, state, outcome, reason,
// a configured gate revision) or balancer names (one per configured balancer); never node URLs, header values
// or secrets. Nodes are only counted, never labelled: their number follows DNS and sampling, not configuration.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  balancerState: Gauge<'balancer' | 'state'>;
  nodesByEra: Gauge<'era'>;
  probeDuration: Histogram<'era'>;
  probeFailures: Counter<'reason'>;
  webhookAttempts: Counter<'outcome'>;
  webhookAttemptDuration: Histogram;
  webhookDeliveries: Gauge<'status'>;
  gateOpen: Gauge<'balancer' | 'revision'>;
  windowDeadline: Gauge<'balancer' | 'revision'>;
  lastCycleAge: Gauge;
}

const NON_CONFORMING_DEFAULTS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

const GLOBAL_KEY = Symbol.for('erawatch.metrics');
type GlobalWithMetrics = typeof globalThis & { [GLOBAL_KEY]?: Metrics };

function createMetrics(): Metrics {
  const registry = new Registry();
  // The standard process_* and nodejs_* names, so stock dashboards work; the three *_total gauges break the
  // naming rule (`promtool check metrics`) and duplicate the unsuffixed ones.
  collectDefaultMetrics({ register: registry });
  for (const name of NON_CONFORMING_DEFAULTS) registry.removeSingleMetric(name);
  return {
    registry,
    balancerState: new Gauge({
      name: 'erawatch_balancer_state',
      help: '1 for the current state of each balancer (uniform, non-uniform, unknown), plus degraded',
      labelNames: ['balancer', 'state'],
      registers: [registry],
    }),
    nodesByEra: new Gauge({
      name: 'erawatch_nodes',
      help: 'Nodes by current client era (modern, legacy, unavailable, unprobed)',
      labelNames: ['era'],
      registers: [registry],
    }),
    probeDuration: new Histogram({
      name: 'erawatch_probe_duration_seconds',
      help: 'Duration of node probes, by resulting client era',
      labelNames: ['era'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    probeFailures: new Counter({
      name: 'erawatch_probe_failures_total',
      help: 'Probes that left a node unavailable, by reason class',
      labelNames: ['reason'],
      registers: [registry],
    }),
    webhookAttempts: new Counter({
      name: 'erawatch_webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome (ok, http_5xx, timeout, gone, ...)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    webhookAttemptDuration: new Histogram({
      name: 'erawatch_webhook_attempt_duration_seconds',
      help: 'Duration of webhook delivery attempts',
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15],
      registers: [registry],
    }),
    webhookDeliveries: new Gauge({
      name: 'erawatch_webhook_deliveries',
      help: 'Webhook deliveries in the outbox by status',
      labelNames: ['status'],
      registers: [registry],
    }),
    gateOpen: new Gauge({
      name: 'erawatch_gate_open',
      help: 'Latest gate answer per balancer and gate revision: 1 ready to advertise, 0 closed',
      labelNames: ['balancer', 'revision'],
      registers: [registry],
    }),
    windowDeadline: new Gauge({
      name: 'erawatch_rollout_window_deadline_timestamp_seconds',
      help: 'Deadline of the open rollout window of each balancer (revision: the one it moves to, if named)',
      labelNames: ['balancer', 'revision'],
      registers: [registry],
    }),
    lastCycleAge: new Gauge({
      name: 'erawatch_poller_last_cycle_age_seconds',
      help: 'Seconds since the newest finished balancer cycle, whichever process ran it (absent before the first)',
      registers: [],
    }),
  };
}

export function getMetrics(): Metrics {
  const g = globalThis as GlobalWithMetrics;
  g[GLOBAL_KEY] ??= createMetrics();
  return g[GLOBAL_KEY];
}

export function recordWebhookAttempt(outcome: string, durationMs: number): void {
  const m = getMetrics();
  m.webhookAttempts.inc({ outcome });
  m.webhookAttemptDuration.observe(durationMs / 1000);
}

/** Probe observations, for the poller to call per probe (reason trimmed to its class, e.g. `legacy_check_failed`). */
export function recordProbe(era: string, reason: string, durationMs: number): void {
  const m = getMetrics();
  m.probeDuration.observe({ era }, durationMs / 1000);
  if (era === 'unavailable') m.probeFailures.inc({ reason: reason.split(':')[0] ?? reason });
}
