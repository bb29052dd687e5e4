// Prometheus metrics, one registry per process. Labels are bounded enumerations (era, state, outcome, reason)
// or balancer names; never URLs, header values or secrets.
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
}

const GLOBAL_KEY = Symbol.for('erawatch.metrics');
type GlobalWithMetrics = typeof globalThis & { [GLOBAL_KEY]?: Metrics };

function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'erawatch_process_' });
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
