// Prometheus metrics, one registry per process. Labels are bounded enumerations (era, state, outcome, reason,
// a configured gate revision) or balancer names (one per configured balancer); never node URLs, header values
// or secrets. Nodes are only counted, never labelled: their number follows DNS and sampling, not configuration.
// Probe, cycle and delivery series are kept in the store instead (./stored), so every web process shows them.
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { storeWriteErrorCount } from '@/db/index';

export interface Metrics {
  registry: Registry;
  balancerState: Gauge<'balancer' | 'state'>;
  nodesByEra: Gauge<'era'>;
  webhookDeliveries: Gauge<'status'>;
  gateOpen: Gauge<'balancer' | 'revision'>;
  windowDeadline: Gauge<'balancer' | 'revision'>;
  lastCycleAge: Gauge;
  webhookOldestPending: Gauge;
  certificatesExpiring: Gauge<'balancer'>;
  certificateEarliestExpiry: Gauge<'balancer'>;
  storeWriteErrors: Counter;
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
  let writeErrorsSeen = 0;
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
      help: 'Nodes by current client era (modern, legacy, unavailable, unprobed); each node once, by its latest verdict from any region',
      labelNames: ['era'],
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
    certificatesExpiring: new Gauge({
      name: 'erawatch_nodes_certificate_expiring',
      help: 'Nodes whose TLS certificate expires within 14 days or has expired, by balancer (latest verdicts)',
      labelNames: ['balancer'],
      registers: [registry],
    }),
    certificateEarliestExpiry: new Gauge({
      name: 'erawatch_certificate_earliest_expiry_timestamp_seconds',
      help: "The earliest TLS certificate expiry among each balancer's nodes (latest verdicts)",
      labelNames: ['balancer'],
      registers: [registry],
    }),
    webhookOldestPending: new Gauge({
      name: 'erawatch_webhook_oldest_pending_seconds',
      help: 'Age of the oldest delivery waiting to be sent (0 when none waits)',
      registers: [registry],
    }),
    storeWriteErrors: new Counter({
      name: 'erawatch_store_write_errors_total',
      help: 'Store writes the database refused in this process (disk full, read-only, I/O error, busy)',
      registers: [registry],
      collect() {
        const seen = storeWriteErrorCount();
        if (seen > writeErrorsSeen) this.inc(seen - writeErrorsSeen);
        writeErrorsSeen = seen;
      },
    }),
  };
}

export function getMetrics(): Metrics {
  const g = globalThis as GlobalWithMetrics;
  g[GLOBAL_KEY] ??= createMetrics();
  return g[GLOBAL_KEY];
}

export { recordProbe, recordWebhookAttempt, recordCycleFailed } from './stored';
